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
import { changesWith } from './content-versions';
import { ContentVersionsRepository } from './content-versions.repository';
import { stillCurrentOf } from './public-list';

/** ETags remembered by URL and table versions (see PublicPipeline.conditional); the oldest go first. */
const VALIDATED_MAX = 20_000;
/**
 * How long a remembered ETag is trusted: the max-age every public answer already allows a cache. It bounds what a
 * read source switching between a replica and the primary between the versions read and the query (the versions
 * from the primary, the rows from a replica not yet as far) could make this process remember.
 */
const VALIDATED_TTL_MS = 60_000;

interface Validated {
  etag: string;
  /** When the body was sent (Date.now()). */
  at: number;
  /** For a list: whether its cached total still stands (the body would be the same). */
  current?: () => boolean;
}

/** Whether an `If-None-Match` header value matches the strong ETag `etag` (a list, or `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

const ifNoneMatch = (req: FastifyRequest): string | undefined => {
  const inm = req.headers['if-none-match'];
  return Array.isArray(inm) ? inm.join(',') : inm;
};

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
 * conditional — a GET with `If-None-Match` to a route declared `@ChangesWith(tables)` first reads the tables'
 *   versions (ContentVersionsRepository: one small statement, shared by the requests that arrive while the one
 *   before it is in flight) and, when this process has sent the same URL at the same versions
 *   and the header holds that body's ETag, answers 304 without running the handler; otherwise the handler runs
 *   and the ETag of the body it sends is remembered for the URL at those versions.
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
  /** The tables of each route declared with @ChangesWith (see conditional). */
  private readonly tables = new Map<string, readonly string[]>();
  /** The ETag sent for a URL at its tables' versions (key `url\nversions`). */
  private readonly validated = new Map<string, Validated>();
  /** Requests whose body's ETag is to be remembered: the key, and the body's STILL_CURRENT. */
  private readonly pending = new WeakMap<FastifyRequest, { key: string; current?: () => boolean }>();

  constructor(
    private readonly keys: PublicKeysService,
    private readonly rateLimit: RateLimitGuard,
    private readonly registry: OpenApiRegistry,
    @InjectConfig() private readonly config: Config,
    private readonly discovery: DiscoveryService,
    private readonly versions: ContentVersionsRepository,
  ) {}

  onModuleInit(): void {
    const pipe = new ApiValidationPipe();
    for (const c of this.discovery.getControllers()) {
      const type = c.metatype as Type | null;
      if (!type || !c.instance) continue;
      if (surfaceOf(joinRoute(String(Reflect.getMetadata(PATH_METADATA, type) ?? ''))) !== 'public') continue;
      for (const [route, { handler, method }] of directHandlers(c.instance as object, type, pipe)) {
        this.direct.set(route, handler);
        const tables = changesWith(type, method);
        if (tables) this.tables.set(route, tables);
      }
    }
  }

  /** The tables a route's bodies are made of, when it is dispatched directly and declares them. */
  tablesFor(route: string): readonly string[] | null {
    return this.tables.get(joinRoute(route)) ?? null;
  }

  /**
   * A GET with `If-None-Match` to a route of `tables`: 304 from the tables' versions when this process has sent
   * the same URL at the same versions with an ETag the header holds (and, for a list, its cached total still
   * stands); otherwise `run` (the handler), whose body's ETag onSend remembers for the URL at those versions.
   *
   * Safe because a table's version changes in the transaction that changes the table (a trigger): versions read
   * before the handler's query are never newer than the rows it reads, so an ETag is remembered under versions
   * no newer than its body, and a body remembered under the current versions is the body the handler would send
   * now. Versions that cannot be read (no row, a failed read) fall back to running the handler.
   */
  conditional(
    req: FastifyRequest,
    reply: FastifyReply,
    tables: readonly string[],
    run: DirectHandler,
  ): Promise<unknown> {
    return this.versions.read(tables).then(
      (v) => {
        if (v === null) return run(req, reply);
        const key = `${req.url}\n${v}`;
        const hit = this.validated.get(key);
        if (
          hit &&
          Date.now() - hit.at < VALIDATED_TTL_MS &&
          (!hit.current || hit.current()) &&
          etagMatches(ifNoneMatch(req), hit.etag)
        ) {
          this.cacheHeaders(req, reply, hit.etag);
          void reply.code(304);
          return undefined;
        }
        const pending: { key: string; current?: () => boolean } = { key };
        this.pending.set(req, pending);
        return run(req, reply).then((body) => {
          pending.current = stillCurrentOf(body);
          return body;
        });
      },
      // Versions that cannot be read: the handler answers (and reports a lost database as it always does).
      () => run(req, reply),
    );
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
    this.cacheHeaders(req, reply, etag);
    const remember = this.pending.get(req);
    if (remember) this.remember(remember.key, { etag, at: Date.now(), current: remember.current });
    if (etagMatches(ifNoneMatch(req), etag)) {
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

  private cacheHeaders(req: FastifyRequest, reply: FastifyReply, etag: string): void {
    void reply.header('ETag', etag);
    void reply.header('Cache-Control', req.ctx.credentialId ? 'private, max-age=60' : 'public, max-age=60');
  }

  private remember(key: string, v: Validated): void {
    if (this.validated.size >= VALIDATED_MAX && !this.validated.has(key))
      this.validated.delete(this.validated.keys().next().value as string);
    this.validated.set(key, v);
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
