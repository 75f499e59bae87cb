import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { assertTenant, Tenant } from './tenant';
import type { UnitOfWork } from '../../database/unit-of-work';
import {
  aboutRecordsSql,
  aboutVisitorSql,
  Erasure,
  erasedBookingSql,
  erasedVisitSql,
  readableJsonbSql,
  HoldsVisitorData,
  VisitorDataHolder,
} from './visitor-data';
import { change } from '../../database/sql';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from './sandbox-data';

export interface IdempotencyRow {
  request_hash: string;
  state: 'running' | 'done';
  locked_until: Date;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
}

/**
 * Whether the key's row `r` may be taken by a request with hash `$hash`: it expired (created before `$expired`), or
 * it is running with its lock run out for the same request (its holder died). The one rule of every statement that
 * takes a key; the arguments are parameter references.
 */
const takeable = (r: string, p: { hash: string; expired: string; now: string }) =>
  `(${r}.created_at < ${p.expired}
    OR (${r}.state = 'running' AND ${r}.locked_until < ${p.now} AND ${r}.request_hash = ${p.hash}))`;

/** CLAIM_OR_READ's parameters that `takeable` reads. */
const CLAIM_PARAMS = { hash: '$4', expired: '$6', now: '$7' };

/**
 * Claims a key or reads it, in one round trip. The key is taken when it is new, expired (older than `$6`), or
 * running with an expired lock for the same request (its holder died); the INSERT … ON CONFLICT keeps that
 * atomic between concurrent requests. A live key (the replay path) is only read: the INSERT is skipped, so a
 * replay neither writes nor locks the row. `claimed` says which; the columns are the row as it was before.
 */
const CLAIM_OR_READ = `
  WITH existing AS (
    SELECT request_hash, state, locked_until, response_status, response_type, response_body, created_at
      FROM visitor.idempotency_key
     WHERE organisation_id = $1 AND livemode = $2 AND key = $3::uuid
  ), claimed AS (
    INSERT INTO visitor.idempotency_key (organisation_id, livemode, key, request_hash, state, locked_until, created_at)
    SELECT $1::text, $2::boolean, $3::uuid, $4::text, 'running', $5::timestamptz, $7::timestamptz
     WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE NOT ${takeable('e', CLAIM_PARAMS)})
    ON CONFLICT (organisation_id, livemode, key) DO UPDATE
       SET request_hash = excluded.request_hash, state = 'running', locked_until = excluded.locked_until,
           created_at = excluded.created_at, response_status = NULL, response_type = NULL, response_body = NULL
     WHERE ${takeable('idempotency_key', CLAIM_PARAMS)}
    RETURNING key
  )
  SELECT EXISTS (SELECT 1 FROM claimed) AS claimed, e.request_hash, e.state, e.locked_until,
         e.response_status, e.response_type, e.response_body
    FROM (SELECT 1) AS one LEFT JOIN existing e ON true`;

/** The outcome of a claim: taken (run the request), or the key's row (null: taken meanwhile by another request). */
export type ClaimResult = { claimed: true } | { claimed: false; row: IdempotencyRow | null };

/**
 * What a transaction that takes its key with its commit (`IdempotencyClaims`, routes marked `@ClaimedWithCommit`)
 * learns with its first statement: whether it holds the key's transaction lock (no other such transaction runs
 * with the key), the key's row as committed when that statement began (see `inTransaction`), and whether the key is
 * free for the request (no row, or one it may take over: `takeable`).
 */
export interface KeyInTransaction {
  locked: boolean;
  row: IdempotencyRow | null;
  free: boolean;
}

@Injectable()
@HoldsVisitorData(50)
@HoldsSandboxData(50)
export class IdempotencyRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /**
   * Sandbox reset: the test-mode tenant's stored idempotent responses (finished ones: a request in flight, the
   * reset's own included, completes as usual).
   */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.idempotency_key WHERE organisation_id = $1 AND livemode = $2 AND state = 'done'`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  async claim(
    t: Tenant,
    key: string,
    hash: string,
    now: Date,
    lockedUntil: Date,
    expiredBefore: Date,
  ): Promise<ClaimResult> {
    const [r] = await preparedQuery<IdempotencyRow & { claimed: boolean }>(
      this.ds,
      'idem_claim_or_read',
      CLAIM_OR_READ,
      [t.organisationId, t.livemode, key, hash, lockedUntil, expiredBefore, now],
    );
    if (r.claimed) return { claimed: true };
    return { claimed: false, row: r.state === null ? null : r };
  }

  /**
   * In the transaction of `manager`, written at once (it goes out with BEGIN and the work's first statement): the
   * key's transaction-scoped advisory lock, tried without waiting, and the key's row. The row is read as committed
   * when the statement started: a request that took the key and committed in between is missed here, and the
   * INSERT of `insertAnswered` then fails on its row instead, so the key is still used once.
   */
  inTransaction(
    manager: EntityManager,
    t: Tenant,
    key: string,
    hash: string,
    at: { now: Date; expiredBefore: Date },
  ): Promise<KeyInTransaction> {
    return preparedQuery<{ locked: boolean; free: boolean } & IdempotencyRow>(
      manager,
      'idem_tx_read',
      `SELECT pg_try_advisory_xact_lock(hashtextextended($4, 0)) AS locked,
              e.state IS NULL OR ${takeable('e', { hash: '$5', expired: '$6', now: '$7' })} AS free,
              e.request_hash, e.state, e.locked_until, e.response_status, e.response_type, e.response_body
         FROM (SELECT 1) AS one LEFT JOIN visitor.idempotency_key e
           ON e.organisation_id = $1 AND e.livemode = $2 AND e.key = $3::uuid`,
      [
        t.organisationId,
        t.livemode,
        key,
        `idempotency ${t.organisationId} ${t.livemode} ${key}`,
        hash,
        at.expiredBefore,
        at.now,
      ],
    ).then(([{ locked, free, ...row }]) => ({ locked, free, row: row.state === null ? null : row }));
  }

  /**
   * Inserts the key answered with the response, in the transaction of `manager` that made the change (written with
   * its COMMIT). `replacing`: the row read in that transaction may be taken over (expired, or its holder died), so
   * it is deleted first, only while it still may. A row that is there when the INSERT runs (another request took the
   * key meanwhile) fails it with a unique violation, and the transaction rolls back.
   */
  insertAnswered(
    manager: EntityManager,
    t: Tenant,
    key: string,
    hash: string,
    answer: { status: number; type: string; body: string; at: Date },
    replacing?: { expiredBefore: Date },
  ): Promise<unknown> {
    const deleted =
      replacing &&
      preparedQuery(
        manager,
        'idem_tx_replace',
        `DELETE FROM visitor.idempotency_key k
          WHERE organisation_id = $1 AND livemode = $2 AND key = $3::uuid
            AND ${takeable('k', { hash: '$6', expired: '$4', now: '$5' })}`,
        [t.organisationId, t.livemode, key, replacing.expiredBefore, answer.at, hash],
      );
    const inserted = preparedQuery(
      manager,
      'idem_tx_insert',
      `INSERT INTO visitor.idempotency_key (organisation_id, livemode, key, request_hash, state, locked_until,
                                            response_status, response_type, response_body, created_at)
       VALUES ($1, $2, $3::uuid, $4, 'done', $5, $6, $7, $8, $5)`,
      [t.organisationId, t.livemode, key, hash, answer.at, answer.status, answer.type, answer.body],
    );
    return deleted ? Promise.all([deleted, inserted]) : inserted;
  }

  /**
   * Stores the response of a claimed key. `committed`: the request's transaction already stored its result (in
   * the same transaction as its change), which the response sent replaces byte for byte.
   */
  async complete(
    t: Tenant,
    key: string,
    hash: string,
    status: number,
    type: string,
    body: string,
    committed = false,
    manager: EntityManager = this.ds.manager,
  ): Promise<void> {
    await preparedQuery(
      manager,
      'idem_complete',
      `UPDATE visitor.idempotency_key SET state = 'done', response_status = $5, response_type = $6, response_body = $7
        WHERE organisation_id = $1 AND livemode = $2 AND key = $3 AND request_hash = $4
          AND (state = 'running' OR $8::boolean)`,
      [t.organisationId, t.livemode, key, hash, status, type, body, committed],
    );
  }

  /** Extends the lease of a running key its request still holds. */
  async renew(t: Tenant, key: string, hash: string, lockedUntil: Date): Promise<void> {
    await preparedQuery(
      this.ds,
      'idem_renew',
      `UPDATE visitor.idempotency_key SET locked_until = $5
        WHERE organisation_id = $1 AND livemode = $2 AND key = $3 AND request_hash = $4 AND state = 'running'`,
      [t.organisationId, t.livemode, key, hash, lockedUntil],
    );
  }

  async release(t: Tenant, key: string, hash: string): Promise<void> {
    await preparedQuery(
      this.ds,
      'idem_release',
      `DELETE FROM visitor.idempotency_key
        WHERE organisation_id = $1 AND livemode = $2 AND key = $3 AND request_hash = $4 AND state = 'running'`,
      [t.organisationId, t.livemode, key, hash],
    );
  }

  /** Deletes keys older than `before`; returns how many. */
  async purge(before: Date): Promise<number> {
    const { affected: n } = await change(
      this.ds,
      `DELETE FROM visitor.idempotency_key WHERE created_at < $1`,
      [before],
    );
    return n;
  }

  /**
   * Erasure: a stored response that is one of the person's records (a visit of the visitor, or one of their
   * bookings: `relatedIds` from earlier holders) is kept with the personal data scrubbed, as the record reads after
   * erasure, so a retry with the same key and body replays it instead of creating the visitor or the booking again
   * and sending another pass; any other stored response that names the visitor or one of those records is
   * forgotten.
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    assertTenant(tenant);
    const bookings = relatedIds.filter((id) => id.startsWith('booking_'));
    const params = [visitorId, tenant.organisationId, tenant.livemode, bookings];
    const aboutVisitor = `coalesce(${aboutVisitorSql('response_body', '{}')}, false)`;
    const aboutBooking = `coalesce(${aboutRecordsSql('response_body', '{}', '$4')}, false)`;
    const readable = readableJsonbSql('response_body');
    await uow.manager.query(
      `UPDATE visitor.idempotency_key
          SET response_body = (CASE WHEN ${aboutVisitor} THEN ${erasedVisitSql(readable, '{}')}
                                    ELSE ${erasedBookingSql(readable, '{}')} END)::text
        WHERE organisation_id = $2 AND livemode = $3 AND (${aboutVisitor} OR ${aboutBooking})`,
      params,
    );
    await uow.manager.query(
      `DELETE FROM visitor.idempotency_key
        WHERE organisation_id = $2 AND livemode = $3
          AND (strpos(response_body, $1) > 0
               OR EXISTS (SELECT 1 FROM unnest($5::text[]) AS r(id) WHERE strpos(response_body, r.id) > 0))
          AND NOT ${aboutVisitor} AND NOT ${aboutBooking}`,
      [...params, relatedIds],
    );
  }
}
