import { hash } from 'node:crypto';
import { Injectable, OnModuleInit, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiValidationPipe } from '../../common/errors/validation.pipe';
import { ApiError } from '../../common/errors/api-error';
import { assertWellFormedQuery, undocumentedParameters } from '../../common/errors/query-string';
import { RateLimitGuard } from '../../common/rate-limit/rate-limit.guard';
import { EXPOSED_HEADERS, surfaceOf } from '../../common/http/surface';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { OpenApiRegistry } from '../../docs/openapi.registry';
import { PublicKeysService } from './public-keys.service';
import { DirectHandler, directHandlers, joinRoute } from './public-dispatch';

/** Whether an `If-None-Match` header value matches the strong ETag `etag` (a list, or `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

/** The strong ETag of a response body: SHA-256, base64url, quoted. */
export const strongEtag = (body: string | Buffer): string => `"${hash('sha256', body, 'base64url')}"`;

/**
 * The /public/v1 request pipeline. It runs as Fastify hooks of the public GET and HEAD routes only (attached
 * by the public plugin, public-plugin.ts, when each route is registered), not as global Nest guards and
 * interceptors, so no other surface pays for it and a public request pays for nothing else:
 *
 * onRequest — CORS (`Access-Control-Allow-Origin: *`, the exposed headers); a malformed query string → 400;
 *   an optional `x-api-key` (unknown or revoked → UNAUTHORIZED, never silently downgraded, counted against the
 *   client IP's keyless allowance first, so guessing is rate-limited like keyless use); the rate limit —
 *   30 a minute per client IP without a key, 600 a minute per key (PUBLIC_KEYLESS_RATE_PER_MINUTE,
 *   PUBLIC_KEYED_RATE_PER_MINUTE), shared by instances through Redis, RateLimit-* headers on every response;
 *   keyed requests counted for attribution; then query parameters the OpenAPI document does not list for the
 *   route → 400 VALIDATION_FAILED naming each (after the rate limit, so the 400 is counted and carries the
 *   headers). Errors thrown here are rendered by the global error filter in the public envelope.
 * onSend — HTTP caching (beyond the spec): a strong `ETag` (SHA-256 of the body) on every 200 to GET and HEAD
 *   (a HEAD runs the GET handler, so its validator is the one the GET body would have), `If-None-Match` → 304
 *   without a body, `Cache-Control: public, max-age=60` on keyless responses and `private, max-age=60` on
 *   keyed ones (a shared cache must not count one partner's requests as another's).
 *
 * handler — the controller method, called directly (see directHandlers: its arguments through the validation
 *   pipe, its @Header and @HttpCode applied) rather than through Nest's router, which would build an execution
 *   context and run the global guard for nothing on every request; a method that needs more of Nest stays on
 *   Nest's router.
 */
@Injectable()
export class PublicPipeline implements OnModuleInit {
  private readonly direct = new Map<string, DirectHandler>();
  /** Each public route's last 200 body and its ETag (see etagOf). */
  private readonly lastBody = new Map<string, { payload: string; etag: string }>();

  constructor(
    private readonly keys: PublicKeysService,
    private readonly rateLimit: RateLimitGuard,
    private readonly registry: OpenApiRegistry,
    @InjectConfig() private readonly config: Config,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    const pipe = new ApiValidationPipe();
    for (const c of this.discovery.getControllers()) {
      const type = c.metatype as Type | null;
      if (!type || !c.instance) continue;
      if (surfaceOf(joinRoute(String(Reflect.getMetadata(PATH_METADATA, type) ?? ''))) !== 'public') continue;
      for (const [route, handler] of directHandlers(c.instance as object, type, pipe))
        this.direct.set(route, handler);
    }
  }

  /** The direct handler of a public route, if its method has one. */
  directFor(route: string): DirectHandler | null {
    return this.direct.get(joinRoute(route)) ?? null;
  }

  /**
   * Callback style, and synchronous when the key's row is cached and the rate limit is counted from a lease this
   * instance holds (most requests of a busy client): such a request allocates no promise here.
   */
  onRequest(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    let value: string | undefined;
    let known: string | 'revoked' | null | undefined;
    try {
      void reply.header('Access-Control-Allow-Origin', '*');
      void reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      assertWellFormedQuery(req.url);
      const raw = req.headers['x-api-key'];
      value = Array.isArray(raw) ? raw[0]?.trim() : raw?.trim();
      if (value !== undefined) known = this.keys.resolveCached(value);
    } catch (e) {
      return done(e as Error);
    }
    if (value !== undefined && known === undefined)
      this.keys.resolve(value).then((keyId) => this.afterKey(req, reply, keyId, done), done);
    else this.afterKey(req, reply, known, done);
  }

  /** The rest of onRequest once the key (if any; undefined without one) is known. `done` is called once. */
  private afterKey(
    req: FastifyRequest,
    reply: FastifyReply,
    keyId: string | 'revoked' | null | undefined,
    done: (err?: Error) => void,
  ): void {
    let counted: Promise<void> | void;
    // An unknown or revoked key is refused, but only after the request is counted against the client IP's keyless
    // allowance: guessing keys costs what keyless requests cost, and is answered 429 once that is spent.
    let refusal: ApiError | undefined;
    try {
      if (keyId === null)
        refusal = new ApiError(
          'unauthorized',
          'The x-api-key header holds an unknown key. Omit it to use the keyless tier.',
        );
      else if (keyId === 'revoked')
        refusal = new ApiError(
          'unauthorized',
          'The x-api-key header holds a revoked key. Omit it to use the keyless tier.',
        );
      if (keyId && keyId !== 'revoked') {
        req.ctx.credentialId = keyId;
        req.ctx.rateLimit = {
          bucket: `pub:key:${keyId}`,
          limit: this.config.publicRates.keyedPerMinute,
          windowMs: 60_000,
        };
        this.keys.countUse(keyId);
      } else {
        req.ctx.rateLimit = {
          bucket: `pub:ip:${req.ip}`,
          limit: this.config.publicRates.keylessPerMinute,
          windowMs: 60_000,
        };
      }
      counted = this.rateLimit.count(reply, req.ctx.rateLimit);
    } catch (e) {
      return done(e as Error);
    }
    const next = refusal ? () => done(refusal) : () => this.lastStep(req, done);
    if (counted) counted.then(next, done);
    else next();
  }

  private lastStep(req: FastifyRequest, done: (err?: Error) => void): void {
    let err: Error | undefined;
    try {
      this.refuseUndocumented(req);
    } catch (e) {
      err = e as Error;
    }
    done(err);
  }

  onSend(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    if (reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const etag = this.etagOf(req.routeOptions.url ?? '', payload);
    void reply.header('ETag', etag);
    void reply.header('Cache-Control', req.ctx.credentialId ? 'private, max-age=60' : 'public, max-age=60');
    const inm = req.headers['if-none-match'];
    if (etagMatches(Array.isArray(inm) ? inm.join(',') : inm, etag)) {
      void reply.code(304);
      // A 304 has no body, and its Content-Length may only be the 200 body's (RFC 9110 §8.6). A HEAD route's own
      // onSend (after this one) sets it from the payload and sends none; a GET sends no Content-Length (payload
      // null, not '', which Fastify would count as 0).
      if (req.method === 'HEAD') return payload;
      void reply.removeHeader('content-length');
      return null;
    }
    return payload;
  }

  /**
   * The strong ETag of a body: SHA-256, unless the route's previous body was the same text (a cached aggregate, a
   * popular page between changes), whose tag is reused — comparing text costs far less than hashing it.
   */
  private etagOf(route: string, payload: string | Buffer): string {
    if (typeof payload !== 'string') return strongEtag(payload);
    const last = this.lastBody.get(route);
    if (last && last.payload === payload) return last.etag;
    const etag = strongEtag(payload);
    this.lastBody.set(route, { payload, etag });
    return etag;
  }

  /** Refuses query parameters the served document does not list for the route (`query.<name>`). */
  private refuseUndocumented(req: FastifyRequest): void {
    if (req.url.indexOf('?') === -1) return;
    const allowed = this.registry.queryParameters('public', 'GET', req.routeOptions.url ?? '');
    if (!allowed) return;
    const unknown = Object.keys((req.query as Record<string, unknown> | undefined) ?? {}).filter(
      (name) => !allowed.has(name),
    );
    if (unknown.length) throw undocumentedParameters(unknown);
  }
}
