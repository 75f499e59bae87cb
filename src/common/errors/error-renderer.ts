import { HttpException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InjectConfig } from '../../config/config.module';
import type { Config } from '../../config/config';
import { newErrorRef } from '../ids';
import { EXPOSED_HEADERS, pathOf, surfaceOf } from '../http/surface';
import { RouteTable } from '../http/route-table';
import { ApiError } from './api-error';
import { bearerChallenge, CHALLENGE_CORS, ChallengeParts, protectedResourceOf } from './bearer-challenge';
import { unavailableFrom } from './unavailable';
import { publicCode, publicStatus, visitorCode, visitorCodeInfo } from './error-codes';

/** The longest path parameter the router takes (Fastify's `maxParamLength`; longer ones are FST_ERR_MAX_PARAM_LENGTH). */
export const MAX_PARAM_LENGTH = 200;

/** The longest `instance` a problem echoes: a longer request path is cut there (`instanceOf`). */
export const MAX_INSTANCE_LENGTH = 512;

/**
 * A problem's `instance`: the request path, cut to MAX_INSTANCE_LENGTH characters (never inside a `%XX` escape)
 * and marked with `…` when longer, so a huge path is not echoed whole.
 */
export function instanceOf(url: string): string {
  const path = pathOf(url);
  if (path.length <= MAX_INSTANCE_LENGTH) return path;
  const cut = path.slice(0, MAX_INSTANCE_LENGTH).replace(/%[0-9A-Fa-f]?$/, '');
  return `${cut}…`;
}

/** CORS headers of every /public/ answer, errors included, so a browser script can read it. */
export const PUBLIC_CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
};

/** An error answer, ready to send. */
export interface RenderedError {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The code as the surface names it. */
  code: string;
  /** The public envelope's `ref` (null on other surfaces). */
  ref: string | null;
}

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
 * was for: the public envelope anywhere under /public/ (unknown versions included), an HTML page for page routes
 * (HtmlErrorPages), RFC 9457 problem details everywhere else.
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
    // The tool server's clients are programs: /mcp answers problem details whatever Accept says.
    const surface = surfaceOf(req.url);
    if (surface !== 'public' && surface !== 'mcp' && this.htmlPages?.wants(req)) {
      for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
      const code = visitorCode(error.code);
      if (req.ctx) req.ctx.errorCode = code;
      this.htmlPages.send(error, visitorCodeInfo(code).status, req, reply);
      return;
    }
    const answer = this.render(error, req.url, req.id);
    if (req.ctx) Object.assign(req.ctx, { errorRef: answer.ref, errorCode: answer.code });
    for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
    for (const [name, value] of Object.entries(this.challengeHeaders(error, req)))
      void reply.header(name, value);
    void reply.status(answer.status).type(answer.contentType).send(answer.body);
  }

  /** The status a /v1 request that failed with `err` is answered with (what `send` would answer). */
  visitorStatus(err: unknown, req: FastifyRequest): number {
    const error = this.classify(err, req);
    return error ? visitorCodeInfo(visitorCode(error.code)).status : 500;
  }

  /**
   * RFC 6750 / RFC 9728 on a protected resource (/v1, /mcp): every 401 tells the client where the resource's
   * metadata is and the scopes the call needs (`ApiError.scopes`), so an OAuth client can discover how to connect
   * from one failed call (`invalid_token` when a credential was sent); a `scope_missing` 403 is an
   * `insufficient_scope` challenge naming every scope the call needs. Their 401 and 403 answers are readable
   * cross-origin (CHALLENGE_CORS). Empty elsewhere.
   */
  challengeHeaders(error: ApiError, req: FastifyRequest): Record<string, string> {
    if (protectedResourceOf(req.url) === null) return {};
    const status = visitorCodeInfo(visitorCode(error.code)).status;
    if (status !== 401 && status !== 403) return {};
    const parts: ChallengeParts | null =
      status === 401
        ? {
            scopes: error.scopes,
            ...(req.headers.authorization === undefined ? {} : { error: 'invalid_token' as const }),
          }
        : error.code === 'scope_missing'
          ? { error: 'insufficient_scope', scopes: error.scopes }
          : null;
    const challenge = parts ? bearerChallenge(this.config.baseUrl, req.url, parts) : null;
    return { ...CHALLENGE_CORS, ...(challenge ? { 'WWW-Authenticate': challenge } : {}) };
  }

  /**
   * `error` as the answer of the surface `url` is under: the public envelope (with a `ref`, and the CORS headers a
   * browser needs to read it) anywhere under /public/, problem details everywhere else. Also used where there is
   * no Fastify reply (a request Node refused before routing: clientErrors).
   */
  render(error: ApiError, url: string, requestId: string): RenderedError {
    if (surfaceOf(url) === 'public') {
      const code = publicCode(error.code);
      const ref = newErrorRef();
      const message =
        error.errors.length > 0
          ? error.errors.map((e) => `${e.location}: ${e.message}`).join('; ')
          : error.detail;
      return {
        status: publicStatus(code).status,
        contentType: 'application/json; charset=utf-8',
        headers: { ...error.headers, ...PUBLIC_CORS },
        body: { ok: false, error: { code, message, ref } },
        code,
        ref,
      };
    }
    const code = visitorCode(error.code);
    const info = visitorCodeInfo(code);
    return {
      status: info.status,
      contentType: 'application/problem+json; charset=utf-8',
      headers: error.headers,
      body: {
        type: `${this.config.docsUrl}/errors#${code}`,
        title: info.title,
        status: info.status,
        detail: error.detail,
        instance: instanceOf(url),
        code,
        request_id: requestId,
        errors: error.errors,
      },
      code,
      ref: null,
    };
  }

  /** Maps any thrown value to an ApiError, or null when it is unexpected (a 500). */
  private classify(thrown: unknown, req: FastifyRequest): ApiError | null {
    // Nest wraps Fastify's own errors (body parsing, limits) in an HttpException; the original is the cause.
    const err = thrown instanceof HttpException && isFrameworkError(thrown.cause) ? thrown.cause : thrown;
    const fe = (err ?? {}) as FrameworkError;
    // Method before body: a request for a method the path does not have is answered so, whatever its body (Fastify
    // parses the body of its not-found route too, and would refuse a malformed one first). A path the router could
    // not read (frameworkErrors, also on no route) is told as such.
    if (req.is404 && fe.code !== 'FST_ERR_BAD_URL' && fe.code !== 'FST_ERR_MAX_PARAM_LENGTH')
      return this.routeNotFound(req);
    if (err instanceof ApiError) return err;
    if (err instanceof NotFoundException) return this.routeNotFound(req);
    if (err instanceof HttpException) return fromStatus(err.getStatus(), err.message);
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
      case 'FST_ERR_BAD_URL':
        return new ApiError(
          'bad_request',
          'The path is not a valid URL: a percent-escape is not valid UTF-8.',
          [{ location: 'path', message: 'must be valid percent-encoded UTF-8' }],
        );
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return new ApiError('bad_request', 'A segment of the path is longer than any id or slug can be.', [
          { location: 'path', message: `each segment must be at most ${MAX_PARAM_LENGTH} characters` },
        ]);
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
    const allowed = this.routes.methodsFor(pathOf(req.url));
    const path = shortened(pathOf(req.url));
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

/** A path as messages quote it: at most 100 characters, so a client's 5 KB path is not echoed back. */
const shortened = (path: string) => (path.length > 100 ? `${path.slice(0, 100)}…` : path);

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
