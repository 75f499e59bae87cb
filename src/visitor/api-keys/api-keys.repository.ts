import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { Plan } from '../platform/plans';
import { change } from '../../database/sql';

export interface ApiKeyRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  kind: 'secret' | 'publishable';
  name: string;
  lookup: string;
  secret_hash: Buffer;
  last4: string;
  scopes: string[];
  created_by: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * A key with the organisation facts the guard chain needs: one query per request, reading the organisation's
 * published plan (`published.organisations_plan`).
 */
export interface KeyWithOrganisation extends ApiKeyRow {
  plan: Plan;
  rate_limit_per_minute: number | null;
  history_days: number | null;
  audit_days: number | null;
  ip_allow_list: string[];
  reference_version: string;
  custom_grants: string[] | null;
}

const FIND_BY_LOOKUP = `
  SELECT k.*, o.plan, o.rate_limit_per_minute, o.history_days, o.audit_days,
         o.ip_allow_list::text[] AS ip_allow_list, o.reference_version::text AS reference_version,
         CASE WHEN o.plan = 'enterprise' AND EXISTS (SELECT 1 FROM unnest(k.scopes) s WHERE s LIKE 'custom:%')
              THEN (SELECT array_agg(DISTINCT g) FROM visitor.custom_scope c, unnest(c.grants) g
                     WHERE c.organisation_id = k.organisation_id AND c.name = ANY (k.scopes))
         END AS custom_grants
    FROM visitor.api_key k JOIN published.organisations_plan o ON o.id = k.organisation_id
   WHERE k.lookup = $1`;

@Injectable()
export class ApiKeysRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(m: EntityManager, k: ApiKeyRow): Promise<void> {
    await m.query(
      `INSERT INTO visitor.api_key (id, organisation_id, livemode, kind, name, lookup, secret_hash, last4, scopes,
         created_by, created_at, expires_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
      [
        k.id,
        k.organisation_id,
        k.livemode,
        k.kind,
        k.name,
        k.lookup,
        k.secret_hash,
        k.last4,
        k.scopes,
        k.created_by,
        k.created_at,
        k.expires_at,
      ],
    );
  }

  async findByLookup(lookup: string): Promise<KeyWithOrganisation | null> {
    const rows = await preparedQuery<KeyWithOrganisation>(this.ds, 'api_key_by_lookup', FIND_BY_LOOKUP, [
      lookup,
    ]);
    return rows[0] ?? null;
  }

  async find(organisationId: string, id: string, m?: EntityManager): Promise<ApiKeyRow | null> {
    const rows: ApiKeyRow[] = await (m ?? this.ds.manager).query(
      `SELECT * FROM visitor.api_key WHERE organisation_id = $1 AND id = $2`,
      [organisationId, id],
    );
    return rows[0] ?? null;
  }

  list(
    organisationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<ApiKeyRow[]> {
    const params: unknown[] = [organisationId, limit + 1];
    let where = '';
    if (after) {
      params.push(after.createdAt, after.id);
      where = `AND (created_at, id) > ($3::timestamptz, $4)`;
    }
    return this.ds.query(
      `SELECT * FROM visitor.api_key WHERE organisation_id = $1 ${where} ORDER BY created_at, id LIMIT $2`,
      params,
    );
  }

  /** Revokes once; returns false when the key was already revoked. */
  async revoke(m: EntityManager, organisationId: string, id: string, at: Date): Promise<boolean> {
    const { affected } = await change(
      m,
      `UPDATE visitor.api_key SET revoked_at = $3 WHERE organisation_id = $1 AND id = $2 AND revoked_at IS NULL`,
      [organisationId, id, at],
    );
    return affected > 0;
  }

  /** Sets last_used_at and records the key's use on `day`; true when this is the first use that day. */
  async touch(id: string, at: Date, day: string): Promise<boolean> {
    await this.ds.query(`UPDATE visitor.api_key SET last_used_at = $2 WHERE id = $1`, [id, at]);
    const rows: unknown[] = await this.ds.query(
      `INSERT INTO visitor.api_key_use_day (key_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING key_id`,
      [id, day],
    );
    return rows.length > 0;
  }

  async upsertCustomScope(
    m: EntityManager,
    organisationId: string,
    name: string,
    description: string,
    grants: string[],
    at: Date,
  ) {
    await m.query(
      `INSERT INTO visitor.custom_scope (organisation_id, name, description, grants, created_at) VALUES ($1,$2,$3,$4,$5)
       ON CONFLICT (organisation_id, name) DO UPDATE SET description = excluded.description, grants = excluded.grants`,
      [organisationId, name, description, grants, at],
    );
  }

  async customScopeNames(organisationId: string, m?: EntityManager): Promise<Set<string>> {
    const rows: { name: string }[] = await (m ?? this.ds.manager).query(
      `SELECT name FROM visitor.custom_scope WHERE organisation_id = $1`,
      [organisationId],
    );
    return new Set(rows.map((r) => r.name));
  }
}
