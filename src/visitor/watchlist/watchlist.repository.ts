import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import type { Severity } from './dto/watchlist.request';

export interface WatchlistEntryRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  name: string;
  aliases: string[];
  phone: string | null;
  email: string | null;
  company: string | null;
  reason: string;
  severity: Severity;
  expires_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface WatchlistMatchRow {
  id: string;
  entry_id: string;
  visit_id: string;
  visitor_id: string;
  field: 'phone' | 'email' | 'name';
  score: number;
  explanation: string;
  severity: Severity;
  trigger: string;
  created_at: Date;
}

/** What a visit's visitor is screened on. */
export interface Screened {
  visitId: string;
  visitorId: string;
  name: string | null;
  phone: string | null;
  email: string | null;
}

/** Name similarity (pg_trgm, over the normalised names) at or above which a name matches. */
export const NAME_SIMILARITY = 0.6;
/** Edit distance (fuzzystrmatch, over the normalised names) at or below which a name of 5+ letters matches. */
export const NAME_EDIT_DISTANCE = 1;

const ACTIVE = `(e.expires_at IS NULL OR e.expires_at > $8)`;
const NEW_ID = `'wlm_' || translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/=', '')`;

/**
 * Screening, in one statement (explanations quote the entry's names, never a value that is also the visitor's): the active entries of the tenant whose phone (E.164) or e-mail (case ignored)
 * equals the visitor's, and whose name or an alias is near the visitor's name. Names are compared after
 * `visitor.watch_norm` (lower case, accents removed, words sorted), so case, accents and word order do not
 * count; a candidate comes from the trigram index (`visitor.watch_name_candidates`: `%` at similarity ≥ 0.5)
 * and matches when its similarity is at
 * least NAME_SIMILARITY or its edit distance at most NAME_EDIT_DISTANCE (names of 5 letters or more). The best
 * name or alias of each entry is kept. New matches are inserted (one per visit, entry and field) and returned.
 */
export const SCREEN_SQL = `
  WITH q AS (SELECT visitor.watch_norm($5) AS norm),
  cand AS (
    SELECT e.id AS entry_id, e.severity, 'phone' AS field, e.phone AS entry_value, $6::text AS matched_value,
           1::real AS score, 'phone equals the entry''s phone (E.164)' AS explanation
      FROM visitor.watchlist_entry e
     WHERE $6::text IS NOT NULL AND e.organisation_id = $1 AND e.livemode = $2 AND e.phone = $6 AND ${ACTIVE}
    UNION ALL
    SELECT e.id, e.severity, 'email', e.email, $7::text, 1::real,
           'e-mail equals the entry''s e-mail (case ignored)'
      FROM visitor.watchlist_entry e
     WHERE $7::text IS NOT NULL AND e.organisation_id = $1 AND e.livemode = $2 AND lower(e.email) = lower($7)
       AND ${ACTIVE}
    UNION ALL
    SELECT * FROM (
      SELECT DISTINCT ON (n.entry_id) n.entry_id, e.severity, 'name', n.value, $5::text,
             round(similarity(n.norm, q.norm)::numeric, 2)::real,
             format('name similarity %s to %s ''%s'' (edit distance %s; case, accents and word order ignored)',
                    to_char(similarity(n.norm, q.norm), 'FM0.00'), n.kind, n.value,
                    levenshtein(left(n.norm, 255), left(q.norm, 255)))
        FROM q, visitor.watch_name_candidates($1, $2, q.norm) n JOIN visitor.watchlist_entry e ON e.id = n.entry_id
       WHERE q.norm <> '' AND ${ACTIVE}
         AND (similarity(n.norm, q.norm) >= ${NAME_SIMILARITY}
              OR (length(q.norm) >= 5 AND levenshtein(left(n.norm, 255), left(q.norm, 255)) <= ${NAME_EDIT_DISTANCE}))
       ORDER BY n.entry_id, similarity(n.norm, q.norm) DESC, n.kind DESC
    ) names
  ), ins AS (
    INSERT INTO visitor.watchlist_match (id, organisation_id, livemode, entry_id, visit_id, visitor_id, field,
                                         entry_value, matched_value, score, explanation, severity, trigger, created_at)
    SELECT ${NEW_ID}, $1, $2, c.entry_id, $3, $4, c.field, c.entry_value, c.matched_value, c.score, c.explanation,
           c.severity, $9, $8
      FROM cand c
    ON CONFLICT (visit_id, entry_id, field) DO NOTHING
    RETURNING id, entry_id, visit_id, visitor_id, field, score, explanation, severity, trigger, created_at
  )
  SELECT * FROM ins ORDER BY created_at, id`;

/**
 * The visit's flag built from all its matches (highest severity first in importance); the visits domain stores it
 * on the visit.
 */
const FLAG = `
  SELECT jsonb_build_object(
           'flagged', true,
           'severity', (ARRAY['low', 'medium', 'high'])[max(array_position(ARRAY['low', 'medium', 'high'], m.severity))],
           'matches', jsonb_agg(jsonb_build_object(
             'id', m.id, 'entry_id', m.entry_id, 'severity', m.severity, 'field', m.field,
             'score', round(m.score::numeric, 2), 'explanation', m.explanation,
             'matched_at', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
             ORDER BY m.created_at, m.id)) AS watchlist
    FROM visitor.watchlist_match m WHERE m.visit_id = $1 AND m.organisation_id = $2 AND m.livemode = $3
  HAVING count(*) > 0`;

/** Watchlist entries (with their normalised names) and matches; tenant-scoped SQL. */
@Injectable()
@HoldsVisitorData(14)
export class WatchlistRepository implements VisitorDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The entry and one normalised row per name and alias, in the caller's transaction. */
  async insert(m: EntityManager, e: WatchlistEntryRow): Promise<void> {
    assertTenant({ organisationId: e.organisation_id, livemode: e.livemode });
    await m.query(
      `INSERT INTO visitor.watchlist_entry (id, organisation_id, livemode, name, aliases, phone, email, company, reason,
                                            severity, expires_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
      [
        e.id,
        e.organisation_id,
        e.livemode,
        e.name,
        e.aliases,
        e.phone,
        e.email,
        e.company,
        e.reason,
        e.severity,
        e.expires_at,
        e.created_by,
        e.created_at,
      ],
    );
    await m.query(
      `INSERT INTO visitor.watchlist_name (entry_id, organisation_id, livemode, kind, value, norm)
       SELECT $1, $2, $3, kind, value, visitor.watch_norm(value)
         FROM (SELECT 'name' AS kind, $4::text AS value UNION ALL SELECT 'alias', unnest($5::text[])) n`,
      [e.id, e.organisation_id, e.livemode, e.name, e.aliases],
    );
  }

  async find(tenant: Tenant, id: string): Promise<WatchlistEntryRow | null> {
    assertTenant(tenant);
    const rows: WatchlistEntryRow[] = await this.ds.query(
      `SELECT * FROM visitor.watchlist_entry WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /** Deletes the entry (its names go with it; matches keep its id); false when it is not the tenant's. */
  async delete(tenant: Tenant, id: string): Promise<boolean> {
    assertTenant(tenant);
    const [, n] = (await this.ds.query(
      `DELETE FROM visitor.watchlist_entry WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    )) as [unknown, number];
    return n > 0;
  }

  /** Keyset page in (created_at, id) order, `limit` rows. */
  list(tenant: Tenant, limit: number, after?: CreatedAfter): Promise<WatchlistEntryRow[]> {
    assertTenant(tenant);
    const params: unknown[] = [tenant.organisationId, tenant.livemode, limit];
    let keyset = '';
    if (after) {
      params.push(new Date(after.createdAt), after.id);
      keyset = 'AND (created_at, id) > ($4, $5)';
    }
    return this.ds.query(
      `SELECT * FROM visitor.watchlist_entry WHERE organisation_id = $1 AND livemode = $2 ${keyset}
        ORDER BY created_at, id LIMIT $3`,
      params,
    );
  }

  /** Screens the visit's visitor (see SCREEN); returns the new matches, already stored. */
  screen(
    m: EntityManager,
    tenant: Tenant,
    s: Screened,
    trigger: string,
    now: Date,
  ): Promise<WatchlistMatchRow[]> {
    assertTenant(tenant);
    return preparedQuery<WatchlistMatchRow>(m, 'watchlist_screen', SCREEN_SQL, [
      tenant.organisationId,
      tenant.livemode,
      s.visitId,
      s.visitorId,
      s.name,
      s.phone,
      s.email,
      now,
      trigger,
    ]);
  }

  /** The visit's flag built from all its matches, in the caller's transaction. */
  async flag(m: EntityManager, tenant: Tenant, visitId: string): Promise<unknown> {
    assertTenant(tenant);
    const rows = await preparedQuery<{ watchlist: unknown }>(m, 'watchlist_flag_of', FLAG, [
      visitId,
      tenant.organisationId,
      tenant.livemode,
    ]);
    return rows[0]?.watchlist ?? null;
  }

  /**
   * Erasure: matches keep the entry, the field, the score and the explanation (which quotes only the entry's
   * names); the values compared go, the visitor's and the entry's (for a phone or an e-mail they are the same).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.watchlist_match SET matched_value = NULL, entry_value = NULL
        WHERE visitor_id = $1 AND organisation_id = $2 AND livemode = $3`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
  }
}
