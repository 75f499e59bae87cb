import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { change } from '../../database/sql';

export interface PublicKeyRow {
  id: string;
  name: string;
  lookup: string;
  key_hash: Buffer;
  last4: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** Public API keys (`content.api_key`) and their daily usage. */
@Injectable()
export class PublicKeysRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(row: Omit<PublicKeyRow, 'last_used_at' | 'revoked_at'>): Promise<void> {
    await this.ds.query(
      `INSERT INTO content.api_key (id, name, lookup, key_hash, last4, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.name, row.lookup, row.key_hash, row.last4, row.created_at],
    );
  }

  /** The key with this lookup part (every request with a key; a named prepared statement). */
  async byLookup(lookup: string): Promise<Pick<PublicKeyRow, 'id' | 'key_hash' | 'revoked_at'> | null> {
    const rows = await preparedQuery<Pick<PublicKeyRow, 'id' | 'key_hash' | 'revoked_at'>>(
      this.ds,
      'public_key_by_lookup',
      `SELECT id, key_hash, revoked_at FROM content.api_key WHERE lookup = $1`,
      [lookup],
    );
    return rows[0] ?? null;
  }

  list(): Promise<PublicKeyRow[]> {
    return this.ds.query(`SELECT * FROM content.api_key ORDER BY created_at, id`);
  }

  /** Revokes by id (`pubkey_…`); returns the row, or null when unknown. Revoking twice keeps the first time. */
  async revoke(id: string, at: Date): Promise<PublicKeyRow | null> {
    const revoked = await change<PublicKeyRow>(
      this.ds,
      `UPDATE content.api_key SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *`,
      [id, at],
    );
    return revoked.rows[0] ?? null;
  }

  /** Adds counted requests per key and day, and moves `last_used_at` on, in one statement. */
  async recordUse(uses: { keyId: string; day: string; requests: number; lastUsedAt: Date }[]): Promise<void> {
    if (uses.length === 0) return;
    await this.ds.query(
      `WITH u AS (
         SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[], $4::timestamptz[]) AS u(key_id, day, requests, last_used_at)
       ), upd AS (
         UPDATE content.api_key k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.last_used_at), u.last_used_at)
           FROM u WHERE k.id = u.key_id
       )
       INSERT INTO content.api_key_use_day (key_id, day, requests)
       SELECT key_id, day, requests FROM u
       ON CONFLICT (key_id, day) DO UPDATE SET requests = content.api_key_use_day.requests + EXCLUDED.requests`,
      [
        uses.map((u) => u.keyId),
        uses.map((u) => u.day),
        uses.map((u) => u.requests),
        uses.map((u) => u.lastUsedAt),
      ],
    );
  }

  usage(keyId: string): Promise<{ day: string; requests: string }[]> {
    return this.ds.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, requests::text FROM content.api_key_use_day WHERE key_id = $1 ORDER BY day`,
      [keyId],
    );
  }
}
