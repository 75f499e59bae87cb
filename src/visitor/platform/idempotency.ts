import {
  CallHandler,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  OnModuleInit,
  SetMetadata,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { catchError, from, map, mergeMap, of, throwError, type Observable } from 'rxjs';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { StoredResponse } from '../../common/http/stored-response';
import { RunOptions, Transactions, type UnitOfWork } from '../../database/unit-of-work';
import { ErrorRenderer } from '../../common/errors/error-renderer';
import {
  ClaimResult,
  IdempotencyRepository,
  type IdempotencyRow,
  type KeyInTransaction,
} from './idempotency.repository';
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

const CLAIMED_WITH_COMMIT = 'gatehouse:idempotency-claimed-with-commit';

/**
 * The route's key is taken in the transaction that makes its change, not by a statement of its own before the
 * handler runs: a transaction-scoped lock and a read of the key go out with BEGIN, and the answered key is inserted
 * with COMMIT, so the request pays no round trip and no commit of its own for its key. For routes whose one effect
 * is one transaction run with IS_RESPONSE (everything before it only reads): the handler then runs before the key
 * is known to be free, and a replay runs it too, up to that transaction, which rolls back and answers the stored
 * response. A route that fails before or in that transaction takes the key as other routes do, after the fact, and
 * stores its error (or answers the key's stored response instead).
 */
export const ClaimedWithCommit = () => SetMetadata(CLAIMED_WITH_COMMIT, true);

interface Claim {
  tenant: Tenant;
  key: string;
  hash: string;
  /** The status the route answers with on success (its @HttpCode, else 201). */
  status: number;
  reply: FastifyReply;
  /** Renews the lease while the request runs (none while no row holds the key: `deferred`). */
  renewal?: NodeJS.Timeout;
  /**
   * No row holds the key yet (`@ClaimedWithCommit`): the request's response transaction inserts it with its
   * commit, or the request takes it after its handler ended (`lateClaim`).
   */
  deferred: boolean;
  /** The key as the response transaction read it under its lock (`deferred`), and whether a row is to be replaced. */
  inTx?: { manager: EntityManager; key: Promise<KeyInTransaction>; expiredBefore: Date; replacing?: boolean };
  /** The request was answered with the key's stored response or a refusal instead: nothing is stored. */
  refused: boolean;
  /** Set when the request's transaction stored its result as the key's response (in that transaction). */
  committed: boolean;
  /** The body that transaction stored (the onSend hook stores the body sent only when it differs). */
  storedBody?: string;
  /** The response that body was serialized from by the route's own serializer (then the reply sends that body). */
  storedResponse?: unknown;
  /** Set when a transaction of the request committed without storing the response (see `store`). */
  unanswered: boolean;
}

/** The response within a transaction's result that the transaction stores as the key's (see RunOptions). */
const responseOf = (result: unknown, o: RunOptions): unknown =>
  o.responseOf ? o.responseOf(result as never) : o.isResponse ? result : undefined;

/** The claim of the idempotent request whose handler is running in this async context. */
const current = new AsyncLocalStorage<Claim>();

/**
 * Why a request may not run with a key whose row is `row` (null: taken by a request still running): the stored
 * response to replay, or the refusal.
 */
function refusalOf(row: IdempotencyRow | null, hash: string): ApiError | StoredResponse {
  if (!row)
    return new ApiError(
      'conflict',
      'A request with this Idempotency-Key is in progress; retry with the same key.',
    );
  if (row.request_hash !== hash)
    return new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used in the last 24 hours with a different method, path or body, or by another credential; use a new key.',
      [{ location: 'header.Idempotency-Key', message: 'was used for a different request' }],
    );
  if (row.state === 'running')
    return new ApiError(
      'conflict',
      'A request with this Idempotency-Key is still in progress; retry with the same key.',
    );
  return new StoredResponse(
    row.response_status ?? 200,
    row.response_type ?? 'application/json',
    row.response_body ?? '',
    { 'Idempotent-Replayed': 'true' },
  );
}

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
    private readonly errors: ErrorRenderer,
    transactions: Transactions,
  ) {
    transactions.participate({
      atBegin: (uow, o) => this.readInTransaction(uow, o),
      beforeCommit: (manager, result, o) => this.decideInTransaction(manager, result, o),
      // Written with the COMMIT (one round trip): the statement goes out before storeInTransaction's first await.
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

  /** A `@ClaimedWithCommit` request's response transaction: the key's lock and row, read with BEGIN. */
  private readInTransaction(uow: UnitOfWork, o: RunOptions): void {
    const claim = current.getStore();
    if (!claim?.deferred || claim.committed || !(o.isResponse || o.responseOf)) return;
    const now = this.clock.now();
    const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
    const key = this.repo.inTransaction(uow.manager, claim.tenant, claim.key, claim.hash, {
      now,
      expiredBefore,
    });
    uow.defer(key);
    claim.inTx = { manager: uow.manager, key, expiredBefore };
  }

  /**
   * Before that transaction commits its response: it runs on only if it holds the key's lock and the key is free
   * (no row, an expired one, or one whose holder of the same request died); otherwise it rolls back and the
   * request is answered as a claim refused before the handler would have been (the stored response, or a refusal).
   */
  private async decideInTransaction(manager: EntityManager, result: unknown, o: RunOptions): Promise<void> {
    const claim = current.getStore();
    const inTx = claim?.inTx;
    if (!claim || !inTx || inTx.manager !== manager) return;
    if (responseOf(result, o) === undefined) {
      claim.inTx = undefined; // this commit stores no response: the key is taken later
      return;
    }
    const { locked, free, row } = await inTx.key;
    if (locked && free) {
      if (row) inTx.replacing = true;
      return;
    }
    claim.inTx = undefined;
    claim.refused = true;
    // A row that holds the key decides, lock or not (a finished key replays even while a retry holds the lock);
    // without one, the lock's holder is a request still running.
    throw refusalOf(row && !free ? row : null, claim.hash);
  }

  /**
   * A `@ClaimedWithCommit` request that ended without its response transaction storing its answer (it failed
   * before or in it): the key is claimed now, as before any other route's handler, and the onSend hook stores the
   * answer; a key already held answers the request instead (its stored response, or the refusal).
   */
  private async lateClaim(claim: Claim): Promise<void> {
    const taken = await this.claim(claim.tenant, claim.key, claim.hash);
    if (taken.claimed) {
      claim.deferred = false;
      claim.renewal = this.renewing(claim.tenant, claim.key, claim.hash); // until onSend has stored the answer
      return;
    }
    claim.refused = true;
    throw refusalOf(taken.row, claim.hash);
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
   * Holds the claim for `req` (renewing its lease; a `deferred` one has no row to renew) and runs `handle` with it
   * as the current claim. A handler that returns the very response its transaction stored is answered with the
   * stored body, so the response is serialized once, not again by the reply (the same serializer, so the same
   * text).
   */
  hold(
    req: FastifyRequest,
    claim: Pick<Claim, 'tenant' | 'key' | 'hash' | 'status' | 'reply'>,
    handle: () => Observable<unknown>,
    deferred = false,
  ): Observable<unknown> {
    const renewal = deferred ? undefined : this.renewing(claim.tenant, claim.key, claim.hash);
    const held: Claim = { ...claim, renewal, committed: false, unanswered: false, deferred, refused: false };
    this.claims.set(req, held);
    let handled = current.run(held, handle);
    if (deferred) {
      const unsettled = () => held.deferred && !held.committed && !held.refused;
      handled = handled.pipe(
        mergeMap((result) => (unsettled() ? from(this.lateClaim(held).then(() => result)) : of(result))),
        catchError((e: unknown) =>
          // A 5xx stores nothing (a retry runs again), as on other routes.
          unsettled() && this.errors.visitorStatus(e, req) < 500
            ? from(
                this.lateClaim(held).then(() => {
                  throw e;
                }),
              )
            : throwError(() => e),
        ),
      );
    }
    return handled.pipe(
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
      deferred: false,
      refused: false,
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
   * so the transaction rolls back; only the key's statements (the UPDATE; for a `deferred` claim the INSERT, after a
   * DELETE of a row it replaces) go out with COMMIT.
   */
  private storeInTransaction(
    manager: EntityManager,
    result: unknown,
    o: RunOptions,
  ): Promise<void> | undefined {
    const claim = current.getStore();
    if (!claim || claim.committed || (claim.deferred && claim.inTx?.manager !== manager)) return undefined;
    const response = responseOf(result, o);
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
    const stored = claim.deferred
      ? this.repo
          .insertAnswered(
            manager,
            claim.tenant,
            claim.key,
            claim.hash,
            { status: claim.status, type: JSON_TYPE, body, at: this.clock.now() },
            claim.inTx?.replacing ? { expiredBefore: claim.inTx.expiredBefore } : undefined,
          )
          .catch((e: unknown) => {
            // Another request took the key meanwhile (a route that claims first): this one rolls back and is
            // answered `conflict`, never stored (that request may yet fail and free the key); a retry with the
            // key then replays what that request stored, or runs again.
            if ((e as { code?: string }).code === '23505') {
              claim.refused = true;
              throw new ApiError(
                'conflict',
                'A request with this Idempotency-Key is in progress; retry with the same key.',
              );
            }
            throw e;
          })
      : this.repo.complete(
          claim.tenant,
          claim.key,
          claim.hash,
          claim.status,
          JSON_TYPE,
          body,
          false,
          manager,
        );
    return stored.then(() => {
      claim.committed = true;
      claim.deferred = false;
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
      // No row holds the key (a 5xx, or a request answered with the key's stored response or a refusal).
      if (claim.deferred) return done(null, payload);
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
 * requests exactly one executes), except on `@ClaimedWithCommit` routes, whose change's transaction takes it;
 * IdempotencyClaims then stores the response. A replay is the stored response with `Idempotent-Replayed: true`.
 * It is attached to every credentialed /v1 route by @Authorize (not globally, so routes of other surfaces run
 * without any interceptor).
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
    const status =
      (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? 201;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const held = { tenant, key: lowered, hash, status, reply };
    // Taken with the commit of the route's change: no statement now.
    if (Reflect.getMetadata(CLAIMED_WITH_COMMIT, context.getHandler()) === true)
      return this.claims.hold(req, held, () => next.handle(), true);
    const claim = await this.claims.claim(tenant, lowered, hash);
    if (claim.claimed) return this.claims.hold(req, held, () => next.handle());
    // Not taken: a replay, a reuse, or a request still running (read in the same statement as the claim).
    throw refusalOf(claim.row, hash);
  }
}
