import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { Tenant } from './tenant';

export interface IdempotencyRow {
  request_hash: string;
  state: 'running' | 'done';
  locked_until: Date;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
}

/**
 * Claims a key atomically: a new key, an expired one (older than `$6`), or a running one whose holder died
 * (lock expired, same request) is taken over; otherwise nothing is returned and the caller reads the row.
 */
const CLAIM = `
  INSERT INTO visitor.idempotency_key (organisation_id, livemode, key, request_hash, state, locked_until, created_at)
  VALUES ($1, $2, $3, $4, 'running', $5, $7)
  ON CONFLICT (organisation_id, livemode, key) DO UPDATE
     SET request_hash = excluded.request_hash, state = 'running', locked_until = excluded.locked_until,
         created_at = excluded.created_at, response_status = NULL, response_type = NULL, response_body = NULL
   WHERE idempotency_key.created_at < $6
      OR (idempotency_key.state = 'running' AND idempotency_key.locked_until < $7
          AND idempotency_key.request_hash = excluded.request_hash)
  RETURNING key`;

@Injectable()
export class IdempotencyRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async claim(
    t: Tenant,
    key: string,
    hash: string,
    now: Date,
    lockedUntil: Date,
    expiredBefore: Date,
  ): Promise<boolean> {
    const rows = await preparedQuery(this.ds, 'idem_claim', CLAIM, [
      t.organisationId,
      t.livemode,
      key,
      hash,
      lockedUntil,
      expiredBefore,
      now,
    ]);
    return rows.length > 0;
  }

  async find(t: Tenant, key: string): Promise<IdempotencyRow | null> {
    const rows = await preparedQuery<IdempotencyRow>(
      this.ds,
      'idem_find',
      `SELECT request_hash, state, locked_until, response_status, response_type, response_body
         FROM visitor.idempotency_key WHERE organisation_id = $1 AND livemode = $2 AND key = $3`,
      [t.organisationId, t.livemode, key],
    );
    return rows[0] ?? null;
  }

  async complete(
    t: Tenant,
    key: string,
    hash: string,
    status: number,
    type: string,
    body: string,
  ): Promise<void> {
    await preparedQuery(
      this.ds,
      'idem_complete',
      `UPDATE visitor.idempotency_key SET state = 'done', response_status = $5, response_type = $6, response_body = $7
        WHERE organisation_id = $1 AND livemode = $2 AND key = $3 AND request_hash = $4 AND state = 'running'`,
      [t.organisationId, t.livemode, key, hash, status, type, body],
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
    const [, n] = (await this.ds.query(`DELETE FROM visitor.idempotency_key WHERE created_at < $1`, [
      before,
    ])) as [unknown, number];
    return n;
  }
}
