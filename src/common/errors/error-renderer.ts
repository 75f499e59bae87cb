import { HttpException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InjectConfig } from '../../config/config.module';
import type { Config } from '../../config/config';
import { newErrorRef } from '../ids';
import { pathOf } from '../http/surface';
import { RouteTable } from '../http/route-table';
import { ApiError } from './api-error';
import { unavailableFrom } from './unavailable';
import { publicCode, publicStatus, visitorCode, visitorCodeInfo } from './error-codes';

interface FrameworkError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/** HTML error pages for browsers (src/pages/error-pages.ts registers itself at start-up). */
export interface HtmlErrorPages {
  /** Whether this failed request should be answered with an HTML page. */
  wants(req: FastifyRequest): boolean;
  send(error: ApiError, status: number, req: FastifyRequest, reply: FastifyReply): void;
}

/**
 * Renders every failure (domain, validation, framework, unknown) in the format of the surface the request
 * was for: the public envelope under /public/v1, an HTML page for page routes (HtmlErrorPages), RFC 9457
 * problem details everywhere else.
 */
@Injectable()
export class ErrorRenderer {
  private readonly logger = new Logger('Errors');
  private htmlPages: HtmlErrorPages | null = null;

  constructor(
    @InjectConfig() private readonly config: Config,
    private readonly routes: RouteTable,
  ) {}

  useHtmlPages(pages: HtmlErrorPages): void {
    this.htmlPages = pages;
  }

  send(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
    const apiError = this.classify(err, req);
    if (apiError === null || apiError.code === 'internal_error' || apiError.code === 'unavailable') {
      this.logger.error(
        {
          msg: apiError?.code === 'unavailable' ? 'dependency unavailable' : 'unexpected error',
          request_id: req.id,
          method: req.method,
          path: pathOf(req.url),
          err: describe(err),
        },
        err instanceof Error ? err.stack : undefined,
      );
    }
    const error =
      apiError ??
      new ApiError('internal_error', 'An unexpected error occurred. Quote the request id to support.');
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    if (req.ctx?.surface === 'public') this.sendPublic(error, req, reply);
    else if (this.htmlPages?.wants(req)) {
      const code = visitorCode(error.code);
      if (req.ctx) req.ctx.errorCode = code;
      this.htmlPages.send(error, visitorCodeInfo(code).status, req, reply);
    } else this.sendProblem(error, req, reply);
  }

  private sendPublic(error: ApiError, req: FastifyRequest, reply: FastifyReply): void {
    const code = publicCode(error.code);
    const ref = newErrorRef();
    if (req.ctx) Object.assign(req.ctx, { errorRef: ref, errorCode: code });
    const message =
      error.errors.length > 0
        ? error.errors.map((e) => `${e.location}: ${e.message}`).join('; ')
        : error.detail;
    void reply
      .status(publicStatus(code).status)
      .type('application/json; charset=utf-8')
      .send({ ok: false, error: { code, message, ref } });
  }

  private sendProblem(error: ApiError, req: FastifyRequest, reply: FastifyReply): void {
    const code = visitorCode(error.code);
    const info = visitorCodeInfo(code);
    if (req.ctx) req.ctx.errorCode = code;
    if (info.status === 401 && req.ctx?.surface === 'visitor')
      void reply.header('WWW-Authenticate', this.challenge(req));
    void reply
      .status(info.status)
      .type('application/problem+json; charset=utf-8')
      .send({
        type: `${this.config.docsUrl}/errors#${code}`,
        title: info.title,
        status: info.status,
        detail: error.detail,
        instance: pathOf(req.url),
        code,
        request_id: req.id,
        errors: error.errors,
      });
  }

  /**
   * RFC 6750 / RFC 9728: every 401 of /v1 tells the client where the protected-resource metadata is, so an OAuth
   * client can discover how to connect from one failed call; `invalid_token` when a credential was sent.
   */
  private challenge(req: FastifyRequest): string {
    const metadata = `${this.config.baseUrl}/.well-known/oauth-protected-resource/v1`;
    return req.headers.authorization === undefined
      ? `Bearer resource_metadata="${metadata}"`
      : `Bearer resource_metadata="${metadata}", error="invalid_token"`;
  }

  /** Maps any thrown value to an ApiError, or null when it is unexpected (a 500). */
  private classify(thrown: unknown, req: FastifyRequest): ApiError | null {
    // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException; the original is the cause.
    const err = thrown instanceof HttpException && isFrameworkError(thrown.cause) ? thrown.cause : thrown;
    if (err instanceof ApiError) return err;
    if (err instanceof NotFoundException) return this.routeNotFound(req);
    if (err instanceof HttpException) return fromStatus(err.getStatus(), err.message);
    const fe = (err ?? {}) as FrameworkError;
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return new ApiError(
          'bad_request',
          `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json.`,
          [{ location: 'header.Content-Type', message: 'must be application/json' }],
        );
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new ApiError(
          'bad_request',
          `The request body is larger than ${this.config.bodyLimitBytes} bytes.`,
          [{ location: 'body', message: `must be at most ${this.config.bodyLimitBytes} bytes` }],
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return new ApiError(
          'bad_request',
          'The body is empty but Content-Type is application/json; send a JSON document.',
          [{ location: 'body', message: 'must be a JSON document' }],
        );
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return new ApiError('bad_request', 'Content-Length does not match the body.', [
          { location: 'header.Content-Length', message: 'must match the body length' },
        ]);
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return invalidJson();
      default:
        break;
    }
    if (err instanceof SyntaxError && fe.statusCode === 400) return invalidJson(err.message);
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return fromStatus(fe.statusCode, 'The request could not be understood.');
    }
    return unavailableFrom(err);
  }

  private routeNotFound(req: FastifyRequest): ApiError {
    const path = pathOf(req.url);
    const allowed = this.routes.methodsFor(path);
    if (allowed.length === 0) return new ApiError('not_found', `No route ${path} exists.`);
    return new ApiError(
      'not_found',
      `${req.method} is not supported on ${path}; allowed: ${allowed.join(', ')}.`,
      [],
      {
        Allow: allowed.join(', '),
      },
    );
  }
}

function isFrameworkError(e: unknown): e is FrameworkError {
  return (
    e instanceof Error &&
    typeof (e as FrameworkError).code === 'string' &&
    (e as FrameworkError).code!.startsWith('FST_')
  );
}

function invalidJson(message?: string): ApiError {
  return new ApiError('bad_request', `The body is not valid JSON${message ? ` (${message})` : ''}.`, [
    { location: 'body', message: 'must be valid JSON' },
  ]);
}

function fromStatus(status: number, message: string): ApiError {
  if (status === 401) return new ApiError('unauthorized', message);
  if (status === 403) return new ApiError('forbidden', message);
  if (status === 404 || status === 405) return new ApiError('not_found', message);
  if (status === 409) return new ApiError('conflict', message);
  if (status === 422) return new ApiError('validation_failed', message);
  if (status === 429)
    return new ApiError(
      'rate_limited',
      'Too many requests; retry after the number of seconds in Retry-After.',
    );
  if (status === 503) return new ApiError('unavailable', message);
  if (status >= 400 && status < 500) return new ApiError('bad_request', message);
  return new ApiError('internal_error', 'An unexpected error occurred. Quote the request id to support.');
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
