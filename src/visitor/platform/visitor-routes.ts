import { CanActivate, ExecutionContext, INestApplication, Logger, NestInterceptor } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { surfaceOf } from '../../common/http/surface';
import {
  controllerRoutes,
  prependGuard,
  prependRouteMetadata,
  routeMetadata,
} from '../../common/http/route-walk';
import { AUTHORIZE, NO_CREDENTIAL } from './authorize.decorator';
import { attachCredentialRegistry } from './bearer.strategy';
import { CredentialRegistry } from './credential.registry';
import { IdempotencyInterceptor } from './idempotency';
import { VisitorAuthGuard } from './visitor-auth.guard';

const logger = new Logger('VisitorAuth');

/** The guard of a /v1 route that declares neither @Authorize nor @NoCredential: refused (deny by default). */
const DENY: CanActivate = {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    logger.error(`${req.method} ${req.routeOptions.url} has no @Authorize: refused (deny by default)`);
    throw new ApiError('forbidden', 'This endpoint is not available to any credential.');
  },
};

interface VisitorChain {
  guard: CanActivate;
  idempotency: NestInterceptor;
}
const CHAIN = Symbol('gatehouse.visitorChain');

/** The chain of the application that serves this request (several may run in one process, as in tests). */
function chainOf(context: ExecutionContext): VisitorChain | undefined {
  const server = context.switchToHttp().getRequest<FastifyRequest>().server as unknown as Record<
    symbol,
    unknown
  >;
  return server[CHAIN] as VisitorChain | undefined;
}

/** Route metadata is per class, so what is attached is the same in every application: it finds the app's chain. */
const VISITOR_GUARD: CanActivate = {
  canActivate: (context) => {
    const chain = chainOf(context);
    return chain ? chain.guard.canActivate(context) : DENY.canActivate(context);
  },
};
const IDEMPOTENCY: NestInterceptor = {
  intercept: (context, next) => {
    const chain = chainOf(context);
    return chain ? chain.idempotency.intercept(context, next) : next.handle();
  },
};

/**
 * Attaches the /v1 guard chain to exactly the routes under /v1, before the router is built: `VisitorAuthGuard`
 * and the idempotency interceptor (it acts on POSTs) to each route that declares what it needs (`@Authorize`,
 * `@NoCredential`), and a refusal to any that declares
 * nothing, whichever module it lives in. No other surface's routes run it. Returns how many routes it guarded.
 */
export function guardVisitorRoutes(app: INestApplication): number {
  try {
    const chain: VisitorChain = {
      guard: app.get(VisitorAuthGuard, { strict: false }),
      idempotency: app.get(IdempotencyInterceptor, { strict: false }),
    };
    const instance = app.getHttpAdapter().getInstance() as FastifyInstance;
    (instance as unknown as Record<symbol, unknown>)[CHAIN] = chain;
    attachCredentialRegistry(instance, app.get(CredentialRegistry, { strict: false }));
  } catch {
    // the visitor surface is not loaded: any /v1 route (a test fixture's) is refused
  }
  let guarded = 0;
  for (const route of controllerRoutes(app)) {
    if (!route.paths.some((p) => surfaceOf(p) === 'visitor')) continue;
    const declared = [AUTHORIZE, NO_CREDENTIAL].some((k) => routeMetadata(route, k) !== undefined);
    prependGuard(route, declared ? VISITOR_GUARD : DENY);
    if (declared) prependRouteMetadata(route, INTERCEPTORS_METADATA, IDEMPOTENCY);
    guarded += 1;
  }
  return guarded;
}
