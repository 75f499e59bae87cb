import {
  CallHandler,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  OnModuleInit,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { map, type Observable } from 'rxjs';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { StoredResponse } from '../../common/http/stored-response';
import { RunOptions, Transactions } from '../../database/unit-of-work';
import { ClaimResult, IdempotencyRepository } from './idempotency.repository';
import type { Tenant } from './tenant';
import { fastifyOf } from '../../common/http/http-host';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * The header as the reference documents it: the document builder adds it to every operation the interceptor
 * covers (every /v1 POST that takes a credential), so no route declares it.
 */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'UUID; a retry with the same key within 24 hours replays the first response',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
/**
 * How long a claim lasts unless its request renews it: a running request renews its lease every RENEW_MS, so a
 * claim whose process died is taken over by a retry within LEASE_MS.
 */
const LEASE_MS = 3_000;
const RENEW_MS = 1_000;
const JSON_TYPE = 'application/json; charset=utf-8';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Claim {
  tenant: Tenant;
  key: string;
  hash: string;
  /** The status the route answers with on success (its @HttpCode, else 201). */
  status: number;
  reply: FastifyReply;
  /** Renews the lease while the request runs. */
  renewal: NodeJS.Timeout;
  /** Set when the request's transaction stored its result as the key's response (in that transaction). */
  committed: boolean;
  /** The body that transaction stored (the onSend hook stores the body sent only when it differs). */
  storedBody?: string;
  /** The response that body was serialized from by the route's own serializer (then the reply sends that body). */
  storedResponse?: unknown;
  /** Set when a transaction of the request committed without storing the response (see `store`). */
  unanswered: boolean;
}

/** The claim of the idempotent request whose handler is running in this async context. */
const current = new AsyncLocalStorage<Claim>();

/** Whether this code runs inside a claimed idempotent /v1 POST (for test-only crash points). */
export function inIdempotentRequest(): boolean {
  return current.getStore() !== undefined;
}

/** Text written as is by `canonical` (punctuation and object keys), as opposed to a value still to be written. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * JSON with sorted object keys, so the same body with its keys in another order is the same request. A loop over an
 * explicit stack rather than recursion, so no body (however deep) can overflow the call stack.
 */
export function canonical(root: unknown): string {
  let out = '';
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Literal) out += v.text;
    else if (Array.isArray(v)) {
      stack.push(new Literal(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i]);
        if (i > 0) stack.push(new Literal(','));
      }
      out += '[';
    } else if (v && typeof v === 'object') {
      const keys = Object.keys(v).sort();
      stack.push(new Literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((v as Record<string, unknown>)[keys[i]]);
        stack.push(new Literal(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
      out += '{';
    } else out += JSON.stringify(v) ?? 'null';
  }
  return out;
}

/**
 * The idempotency keys claimed by requests in flight, and the one onSend hook that stores each claimed
 * request's final status and body (any status below 500), or releases the key on a 5xx so a retry runs again.
 * Requests without a claim pass the hook at the cost of one WeakMap lookup.
 *
 * A transaction run with `isResponse` inside a claimed request stores its result as the key's response in that
 * same transaction (a transaction participant), so a process that dies after the commit and before the onSend
 * hook leaves the key answered, not running: a retry replays the change instead of making it a second time.
 * While a request runs its claim's lease is renewed; a claim whose process died lapses within LEASE_MS.
 */
@Injectable()
export class IdempotencyClaims implements OnModuleInit {
  private readonly logger = new Logger('Idempotency');
  private readonly claims = new WeakMap<FastifyRequest, Claim>();

  constructor(
    private readonly repo: IdempotencyRepository,
    private readonly adapter: HttpAdapterHost,
    private readonly clock: Clock,
    transactions: Transactions,
  ) {
    transactions.participate({
      // Written with the COMMIT (one round trip): the UPDATE goes out before storeInTransaction's first await.
      withCommit: (manager, result, o) => this.storeInTransaction(manager, result, o),
    });
  }

  has(req: FastifyRequest): boolean {
    return this.claims.has(req);
  }

  /** Claims `key` for a request with `hash` (one atomic statement), or reads the row that holds it. */
  claim(tenant: Tenant, key: string, hash: string): Promise<ClaimResult> {
    const now = this.clock.now();
    return this.repo.claim(
      tenant,
      key,
      hash,
      now,
      new Date(now.getTime() + LEASE_MS),
      new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
    );
  }

  /** Renews a claim's lease every RENEW_MS while its request runs (cleared when the request ends). */
  private renewing(tenant: Tenant, key: string, hash: string): NodeJS.Timeout {
    const renewal = setInterval(() => {
      const until = new Date(this.clock.now().getTime() + LEASE_MS);
      this.repo.renew(tenant, key, hash, until).catch((e: Error) => {
        this.logger.warn(`could not renew the claim of key ${key}: ${e.message}`);
      });
    }, RENEW_MS);
    renewal.unref();
    return renewal;
  }

  /**
   * Holds the claim for `req` (renewing its lease) and runs `handle` with it as the current claim. A handler that
   * returns the very response its transaction stored is answered with the stored body, so the response is
   * serialized once, not again by the reply (the same serializer, so the same text).
   */
  hold(
    req: FastifyRequest,
    claim: Omit<Claim, 'renewal' | 'committed' | 'unanswered'>,
    handle: () => Observable<unknown>,
  ): Observable<unknown> {
    const renewal = this.renewing(claim.tenant, claim.key, claim.hash);
    const held: Claim = { ...claim, renewal, committed: false, unanswered: false };
    this.claims.set(req, held);
    return current.run(held, handle).pipe(
      map((result) => {
        if (!held.committed || held.storedResponse === undefined || result !== held.storedResponse)
          return result;
        void held.reply.type(JSON_TYPE);
        return held.storedBody;
      }),
    );
  }

  /**
   * One call made at most once per key, outside an HTTP request of its own (the tool server's writes, src/mcp):
   * the same store, lease and in-transaction answer as a /v1 POST. `serialize` writes the call's answer as stored
   * (the /v1 response body). A call already answered replays its stored body; one still running, or
   * a key used with another hash, is refused as on /v1. A call that fails releases the key (nothing changed).
   */
  async once(
    call: { tenant: Tenant; key: string; hash: string; serialize: (result: unknown) => string },
    work: () => Promise<unknown>,
  ): Promise<{ body: string; replayed: boolean }> {
    const { tenant, hash } = call;
    const key = call.key.toLowerCase();
    const claim = await this.claim(tenant, key, hash);
    if (!claim.claimed) {
      const row = claim.row;
      if (!row || row.state === 'running')
        throw new ApiError('conflict', 'The same call is still in progress; retry it in a moment.');
      if (row.request_hash !== hash)
        throw new ApiError('idempotency_key_reused', 'This call key was used for a different call.');
      return { body: row.response_body ?? '', replayed: true };
    }
    const reply = { serializeInput: (v: unknown) => call.serialize(v) } as unknown as FastifyReply;
    const renewal = this.renewing(tenant, key, hash);
    const held: Claim = {
      tenant,
      key,
      hash,
      status: 200,
      reply,
      renewal,
      committed: false,
      unanswered: false,
    };
    try {
      const result = await current.run(held, work);
      const body = call.serialize(result);
      if (!held.committed) await this.repo.complete(tenant, key, hash, 200, JSON_TYPE, body, false);
      return { body, replayed: false };
    } catch (e) {
      // A failed call changed nothing: the key is released, so the same call asked for later runs again (the
      // state that refused it may have changed) rather than replaying the refusal for a day.
      if (!held.committed) await this.repo.release(tenant, key, hash).catch(() => undefined);
      throw e;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * The response is the transaction's result: stored as the key's response before the transaction commits. Not
   * async on purpose: what can fail in code (the response, its serialization) throws here, before COMMIT is written,
   * so the transaction rolls back; only the UPDATE goes out with COMMIT.
   */
  private storeInTransaction(
    manager: EntityManager,
    result: unknown,
    o: RunOptions,
  ): Promise<void> | undefined {
    const claim = current.getStore();
    if (!claim || claim.committed) return undefined;
    const response = o.responseOf ? o.responseOf(result as never) : o.isResponse ? result : undefined;
    if (response === undefined) {
      claim.unanswered = true;
      return undefined;
    }
    let body: string;
    let bySchema = true;
    try {
      body = claim.reply.serializeInput(response as Record<string, unknown>, String(claim.status)) as string;
    } catch {
      body = JSON.stringify(response); // the route has no response schema for the status
      bySchema = false;
    }
    return this.repo
      .complete(claim.tenant, claim.key, claim.hash, claim.status, JSON_TYPE, body, false, manager)
      .then(() => {
        claim.committed = true;
        claim.storedBody = body;
        if (bySchema && response !== null && typeof response === 'object') claim.storedResponse = response;
      });
  }

  onModuleInit(): void {
    const fastify = fastifyOf(this.adapter);
    if (!fastify) return;
    fastify.addHook('onSend', (req, reply, payload, done) => {
      const claim = this.claims.get(req);
      if (!claim) return done(null, payload);
      this.claims.delete(req);
      clearInterval(claim.renewal);
      void this.store(claim, reply, payload).then(() => done(null, payload));
    });
  }

  private async store(claim: Claim, reply: FastifyReply, payload: unknown): Promise<void> {
    // A POST that forgot to mark its transaction: a crash after its commit would make the change again on retry.
    if (claim.unanswered && !claim.committed && reply.statusCode < 300)
      this.logger.error(
        `${reply.request.method} ${reply.request.routeOptions.url ?? reply.request.url} committed its change without storing its answer in that transaction (tx.run(work, IS_RESPONSE)); a retry after a crash would repeat it`,
      );
    try {
      // A failure after the change committed: the key keeps the committed result, which a retry replays.
      if (reply.statusCode >= 500 && claim.committed) return;
      const sent =
        typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      const type = String(reply.getHeader('content-type') ?? JSON_TYPE);
      // The transaction stored exactly this answer already: writing it again would be a round trip for nothing
      // (and could put back what an erasure committed since scrubbed from it).
      if (
        claim.committed &&
        reply.statusCode === claim.status &&
        type === JSON_TYPE &&
        sent === claim.storedBody
      )
        return;
      if (reply.statusCode >= 500) await this.repo.release(claim.tenant, claim.key, claim.hash);
      else
        await this.repo.complete(
          claim.tenant,
          claim.key,
          claim.hash,
          reply.statusCode,
          type,
          sent,
          claim.committed,
        );
    } catch (e) {
      // The key stays "running" until its lease lapses; a retry after that runs again.
      this.logger.warn(`could not store the response for key ${claim.key}: ${(e as Error).message}`);
    }
  }
}

/**
 * `Idempotency-Key` on every /v1 POST, scoped to organisation and mode, kept 24 hours in PostgreSQL, and bound to
 * the credential that made the request (another credential's request with the key is `idempotency_key_reused`).
 * The interceptor claims the key before the handler runs (one atomic INSERT … ON CONFLICT, so of concurrent
 * requests exactly one executes); IdempotencyClaims then stores the response. A replay is the stored response
 * with `Idempotent-Replayed: true`. It is attached to every credentialed /v1 route by @Authorize (not
 * globally, so routes of other surfaces run without any interceptor).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly repo: IdempotencyRepository,
    private readonly clock: Clock,
    private readonly claims: IdempotencyClaims,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    if (req.method !== 'POST' || req.ctx?.surface !== 'visitor' || !req.credential || this.claims.has(req))
      return next.handle();
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined || key === '')
      throw ApiError.validation([
        {
          location: 'header.Idempotency-Key',
          message: 'is required on every POST (a UUID you generate per operation)',
        },
      ]);
    if (!UUID.test(key))
      throw ApiError.validation([{ location: 'header.Idempotency-Key', message: 'must be a UUID' }]);
    const tenant = { organisationId: req.credential.organisation.id, livemode: req.credential.livemode };
    const path = req.url;
    // The credential is part of the request: a stored answer replays only to the credential that made it (its
    // checks, e.g. a publishable key's public form, ran for that credential only). An API key is its key id; an
    // OAuth token its grant (one client and account; a refreshed token keeps it).
    const hash = createHash('sha256')
      .update(
        `${req.method}\n${path}\n${req.credential.kind}:${req.credential.id}\n${canonical(req.body ?? null)}`,
      )
      .digest('base64url');
    const lowered = key.toLowerCase();
    const claim = await this.claims.claim(tenant, lowered, hash);
    if (claim.claimed) {
      const status =
        (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? 201;
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      return this.claims.hold(req, { tenant, key: lowered, hash, status, reply }, () => next.handle());
    }
    // Not taken: a replay, a reuse, or a request still running (read in the same statement as the claim).
    const row = claim.row;
    if (!row)
      throw new ApiError(
        'conflict',
        'A request with this Idempotency-Key is in progress; retry with the same key.',
      );
    if (row.request_hash !== hash)
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was used in the last 24 hours with a different method, path or body, or by another credential; use a new key.',
        [{ location: 'header.Idempotency-Key', message: 'was used for a different request' }],
      );
    if (row.state === 'running')
      throw new ApiError(
        'conflict',
        'A request with this Idempotency-Key is still in progress; retry with the same key.',
      );
    throw new StoredResponse(
      row.response_status ?? 200,
      row.response_type ?? 'application/json',
      row.response_body ?? '',
      {
        'Idempotent-Replayed': 'true',
      },
    );
  }
}
