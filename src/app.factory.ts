import { INestApplicationContext, LogLevel as NestLogLevel, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config, LogLevel } from './config/config';
import { AppModule } from './app.module';
import { RouteTable } from './common/http/route-table';
import { limitedServerFactory } from './common/http/server-limits';
import { frameworkErrorHandlers } from './common/http/framework-errors';
import { registerJsonBodyParser } from './common/http/json-body';
import { inlineStyleHashes, registerSecurityHeaders } from './common/http/security-headers';
import { newRequestId } from './common/ids';
import { surfaceOf } from './common/http/surface';
import { PublicPipeline } from './content/platform/public-pipeline';
import { publicPlugin } from './content/platform/public-plugin';
import { redactUrl } from './common/http/redact';
import { assertNoNul } from './common/errors/query-string';
import { isEngineUrl } from './oauth/oauth-server';
import { AllErrorsFilter } from './common/errors/all-errors.filter';
import { ErrorRenderer, MAX_PARAM_LENGTH } from './common/errors/error-renderer';
import { ApiValidationPipe } from './common/errors/validation.pipe';
import { RequestLogService } from './ops/request-log/request-log.service';
import { guardVisitorRoutes } from './visitor/platform/visitor-routes';
import { guardConsoleRoutes } from './console/console-access';
import { OpenApiRegistry } from './docs/openapi.registry';
import { buildOpenApiDocuments } from './docs/openapi.builder';
import { SCOPE_WORDS } from './visitor/platform/scope-words';
import { IDEMPOTENCY_KEY_PARAMETER } from './visitor/platform/idempotency';
import { ResponseSchemas } from './docs/response-schemas';
import { page as docsPage } from './docs/docs.render';
import { registerPages } from './pages/page-framework';
import { registerApiReferences } from './docs/api-reference';
import type { RequestContext } from './common/http/request-context';

const LEVELS: Record<LogLevel, NestLogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

export function nestLogLevels(level: LogLevel): NestLogLevel[] {
  return LEVELS[level];
}

export interface CreateAppOptions {
  logger?: LoggerService | NestLogLevel[] | false;
  /** Extra modules (test fixtures) mounted alongside the surfaces. */
  extraModules?: Type[];
}

/** The request's context and `Svc-Request-Id`, first thing for every request (framework refusals included). */
function startRequest(req: FastifyRequest, reply: FastifyReply): void {
  req.ctx = {
    requestId: req.id,
    surface: surfaceOf(req.url),
    receivedAt: new Date(),
    errorRef: null,
    errorCode: null,
    organisationId: null,
    credentialId: null,
    livemode: null,
    rateLimit: null,
  };
  void reply.header('Svc-Request-Id', req.id);
}

/**
 * The same object graph as the server's (configuration, database, Redis, every domain's services and
 * subscribers), without HTTP: for code that runs services outside a request, such as service-tier tests.
 */
export async function createContext(
  config: Config,
  databaseUrl: string,
  opts: CreateAppOptions = {},
): Promise<INestApplicationContext> {
  const ctx = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, databaseUrl, new RouteTable(), opts.extraModules),
    { logger: opts.logger ?? nestLogLevels(config.logLevel), abortOnError: false },
  );
  await ctx.init();
  return ctx;
}

/** Builds the initialised (not yet listening) application. Used by main.ts, the worker and the tests. */
export async function createApp(
  config: Config,
  databaseUrl: string,
  opts: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const routeTable = new RouteTable();
  let renderer: ErrorRenderer | null = null;
  const frameworkErrors = frameworkErrorHandlers(() => renderer, startRequest);
  const adapter = new FastifyAdapter({
    frameworkErrors: frameworkErrors.frameworkErrors,
    clientErrorHandler: frameworkErrors.clientErrorHandler,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    serverFactory: limitedServerFactory(config.http),
  });
  const fastify = adapter.getInstance();
  fastify.decorateRequest('ctx', null as unknown as RequestContext);
  registerJsonBodyParser(fastify, config.jsonMaxDepth);
  registerSecurityHeaders(fastify, { styleHashes: inlineStyleHashes(docsPage('', '')) });
  let responseSchemas: ResponseSchemas | null = null;
  fastify.addHook('onRoute', (route) => {
    routeTable.add(route.method, route.url);
    responseSchemas?.attach(route);
  });

  // Graceful shutdown: once closing starts, responses to in-flight requests say `Connection: close`, and
  // keep-alive connections that fall idle are closed, so close() completes as soon as the work is done.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  // Every request passes these hooks: callback style, so none allocates a promise.
  fastify.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) void reply.header('Connection', 'close');
    done(null, payload);
  });

  let requestLog: RequestLogService | null = null;
  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    startRequest(req, reply);
    if (req.url.includes('%00') && !isEngineUrl(req.url)) {
      try {
        assertNoNul(req.url);
      } catch (e) {
        return done(e as Error);
      }
    }
    done();
  });
  fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    done();
    if (closing) fastify.server.closeIdleConnections();
    const ctx = req.ctx;
    if (!requestLog || !ctx) return;
    try {
      requestLog.record({
        requestId: ctx.requestId,
        errorRef: ctx.errorRef,
        receivedAt: ctx.receivedAt,
        surface: ctx.surface,
        method: req.method,
        path: redactUrl(req.url),
        status: reply.statusCode,
        errorCode: ctx.errorCode,
        durationMs: reply.elapsedTime,
        clientIp: req.ip ?? null,
        organisationId: ctx.organisationId,
        credentialId: ctx.credentialId,
        livemode: ctx.livemode,
      });
    } catch {
      // the request log never fails a request
    }
  });

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, databaseUrl, routeTable, opts.extraModules),
    adapter,
    {
      logger: opts.logger ?? nestLogLevels(config.logLevel),
      abortOnError: false,
      bodyParser: false,
    },
  );
  guardVisitorRoutes(app);
  guardConsoleRoutes(app);
  const errors = app.get(ErrorRenderer);
  renderer = errors;
  app.useGlobalFilters(new AllErrorsFilter(errors));
  app.useGlobalPipes(new ApiValidationPipe());
  // The documents are built from the controllers' metadata before Nest registers their routes, so each route
  // is registered with its documented response schemas (see ResponseSchemas).
  const docs = buildOpenApiDocuments(app, config, {
    scopes: SCOPE_WORDS,
    idempotencyKey: IDEMPOTENCY_KEY_PARAMETER,
  });
  app.get(OpenApiRegistry).set(docs);
  responseSchemas = new ResponseSchemas(docs);
  await registerPages(fastify, config);
  if (config.surfaces.includes('docs')) await registerApiReferences(fastify, app.get(OpenApiRegistry));
  // Only when the public surface is served (SURFACES); its routes, and so its hooks, exist only then.
  if (config.surfaces.includes('public'))
    await fastify.register(publicPlugin, {
      pipeline: app.get<PublicPipeline>(PublicPipeline),
      renderer: errors,
    });
  await app.init();
  requestLog = app.get(RequestLogService);
  await fastify.ready();
  return app;
}
