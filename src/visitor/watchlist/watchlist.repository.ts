import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import type { Severity } from './dto/watchlist.request';
import { matchNames, nameKeys, Word, words } from './name-match';
import { change } from '../../database/sql';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

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

/** A match with the name of its entry (null once removed), for the list of recent matches. */
export interface RecentMatchRow extends WatchlistMatchRow {
  entry_name: string | null;
}

/** What a visit's visitor is screened on. */
export interface Screened {
  visitId: string;
  visitorId: string;
  name: string | null;
  phone: string | null;
  email: string | null;
}

const ACTIVE = `(e.expires_at IS NULL OR e.expires_at > $8)`;
const NEW_ID = `'wlm_' || translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/=', '')`;

/**
 * Candidates of a screening: the names and aliases of the tenant's active entries that share an index key with the
 * visitor's name (`nameKeys`, GIN index on `watchlist_name.keys`; `matchNames` then decides and explains), and the
 * entries whose phone or e-mail equals the visitor's. Most visitors have none, and screening ends here. Run
 * unprepared, so each run is planned with its keys (a generic plan may read the tenant's entries instead of the index).
 */
export const CANDIDATES_SQL = `
  WITH n AS MATERIALIZED (
    SELECT entry_id, kind, value FROM visitor.watchlist_name
     WHERE keys && $3::text[] AND organisation_id = $1 AND livemode = $2)
  SELECT n.entry_id, n.kind, n.value, e.severity
    FROM n JOIN visitor.watchlist_entry e ON e.id = n.entry_id
   WHERE e.organisation_id = $1 AND e.livemode = $2 AND (e.expires_at IS NULL OR e.expires_at > $4)
  UNION ALL
  SELECT e.id, 'phone', NULL, e.severity FROM visitor.watchlist_entry e
   WHERE $5::text IS NOT NULL AND e.organisation_id = $1 AND e.livemode = $2 AND e.phone = $5
     AND (e.expires_at IS NULL OR e.expires_at > $4)
  UNION ALL
  SELECT e.id, 'email', NULL, e.severity FROM visitor.watchlist_entry e
   WHERE $6::text IS NOT NULL AND e.organisation_id = $1 AND e.livemode = $2 AND lower(e.email) = lower($6)
     AND (e.expires_at IS NULL OR e.expires_at > $4)`;

/** Runs a statement (prepared under `prepareAs` when given) and returns its rows. */
export type RunQuery = (sql: string, params: unknown[], prepareAs?: string) => Promise<unknown[]>;

/**
 * Screens a visit's visitor: candidates (CANDIDATES_SQL); when any, names decided by `matchNames`, then one
 * statement (SCREEN_SQL) that stores the new name, phone and e-mail matches. Returns the new matches.
 */
export async function screenVisitor(
  run: RunQuery,
  tenant: Tenant,
  s: Screened,
  trigger: string,
  now: Date,
): Promise<WatchlistMatchRow[]> {
  const name = s.name?.trim() ?? '';
  const cand = (await run(CANDIDATES_SQL, [
    tenant.organisationId,
    tenant.livemode,
    name ? nameKeys(name, 'query') : [],
    now,
    s.phone,
    s.email,
  ])) as { entry_id: string; kind: string; value: string | null; severity: string }[];
  const names = bestNameMatches(
    name,
    cand.filter((c): c is (typeof cand)[number] & { value: string } => c.value !== null),
  );
  if (names.length === 0 && cand.every((c) => c.value !== null)) return [];
  return (await run(SCREEN_SQL, [
    tenant.organisationId,
    tenant.livemode,
    s.visitId,
    s.visitorId,
    s.name,
    s.phone,
    s.email,
    now,
    trigger,
    names.map((n) => n.entry_id),
    names.map((n) => n.value),
    names.map((n) => n.score),
    names.map((n) => n.explanation),
    names.map((n) => n.severity),
  ])) as WatchlistMatchRow[];
}

/** A name or alias of an entry that matched the visitor's name, decided in `bestNameMatches`. */
export interface NameHit {
  entry_id: string;
  severity: string;
  value: string;
  score: number;
  explanation: string;
}

/** Words of entries' names, kept (up to 50,000 names) since the same entries are compared again and again. */
const WORDS = new Map<string, Word[]>();
function entryWords(name: string): Word[] {
  let w = WORDS.get(name);
  if (!w) {
    if (WORDS.size >= 50_000) WORDS.clear();
    WORDS.set(name, (w = words(name)));
  }
  return w;
}

/** The best name or alias of each candidate entry that matches the visitor's name (name before alias on a tie). */
export function bestNameMatches(
  visitor: string,
  candidates: { entry_id: string; kind: string; value: string; severity: string }[],
): NameHit[] {
  const v = words(visitor);
  const best = new Map<string, NameHit & { kind: string }>();
  for (const c of candidates) {
    const m = matchNames(v, entryWords(c.value));
    if (!m) continue;
    const had = best.get(c.entry_id);
    if (had && (had.score > m.score || (had.score === m.score && had.kind === 'name'))) continue;
    best.set(c.entry_id, {
      entry_id: c.entry_id,
      kind: c.kind,
      severity: c.severity,
      value: c.value,
      score: m.score,
      explanation: `name matches ${c.kind} '${c.value}': ${m.explanation}`,
    });
  }
  return [...best.values()].map(({ kind: _kind, ...h }) => h);
}

/**
 * Screening, in one statement (explanations quote the entry's names, never a value that is also the visitor's):
 * the active entries of the tenant whose phone (E.164) or e-mail (case ignored) equals the visitor's, and the name
 * matches decided before (`bestNameMatches`, passed as arrays $10–$14, with the entry's severity read by the candidates
 * statement in the same transaction, so no join to the entries: a generic plan may read them all). New matches are inserted (one per visit,
 * entry and field) and returned.
 */
export const SCREEN_SQL = `
  WITH cand AS (
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
    SELECT c.entry_id, c.severity, 'name', c.value, $5::text, c.score, c.explanation
      FROM unnest($10::text[], $11::text[], $12::real[], $13::text[], $14::text[])
           AS c(entry_id, value, score, explanation, severity)
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
@HoldsSandboxData(10)
export class WatchlistRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's matches (the entries stay). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.watchlist_match WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  /** The entry and one normalised row per name and alias, in the caller's transaction. */
  async insert(m: EntityManager, e: WatchlistEntryRow): Promise<void> {
    assertTenant({ organisationId: e.organisation_id, livemode: e.livemode });
    const names = [e.name, ...e.aliases];
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
      `INSERT INTO visitor.watchlist_name (entry_id, organisation_id, livemode, kind, value, norm, keys)
       SELECT $1, $2, $3, n.kind, n.value, visitor.watch_norm(n.value), ARRAY(SELECT jsonb_array_elements_text(n.keys))
         FROM unnest($4::text[], $5::text[], $6::jsonb[]) AS n(kind, value, keys)`,
      [
        e.id,
        e.organisation_id,
        e.livemode,
        names.map(() => 'alias').fill('name', 0, 1),
        names,
        names.map((n) => JSON.stringify(nameKeys(n))),
      ],
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
    const { affected: n } = await change(
      this.ds,
      `DELETE FROM visitor.watchlist_entry WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
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

  /**
   * The tenant's matches, newest first (keyset on (created_at, id) descending, `limit` rows), each with the name of
   * its entry (null once the entry is removed: matches keep its id). No compared value is read.
   */
  recentMatches(tenant: Tenant, limit: number, before?: CreatedAfter): Promise<RecentMatchRow[]> {
    assertTenant(tenant);
    const params: unknown[] = [tenant.organisationId, tenant.livemode, limit];
    let keyset = '';
    if (before) {
      params.push(new Date(before.createdAt), before.id);
      keyset = 'AND (m.created_at, m.id) < ($4, $5)';
    }
    return this.ds.query(
      `SELECT m.id, m.entry_id, m.visit_id, m.visitor_id, m.field, m.score, m.explanation, m.severity, m.trigger,
              m.created_at, e.name AS entry_name
         FROM visitor.watchlist_match m
         LEFT JOIN visitor.watchlist_entry e
           ON e.id = m.entry_id AND e.organisation_id = m.organisation_id AND e.livemode = m.livemode
        WHERE m.organisation_id = $1 AND m.livemode = $2 ${keyset}
        ORDER BY m.created_at DESC, m.id DESC LIMIT $3`,
      params,
    );
  }

  /** Screens the visit's visitor (`screenVisitor`) in the caller's transaction; returns the new matches. */
  screen(
    m: EntityManager,
    tenant: Tenant,
    s: Screened,
    trigger: string,
    now: Date,
  ): Promise<WatchlistMatchRow[]> {
    assertTenant(tenant);
    return screenVisitor(
      (sql, params, prepareAs) =>
        prepareAs ? preparedQuery(m, prepareAs, sql, params) : (m.query(sql, params) as Promise<unknown[]>),
      tenant,
      s,
      trigger,
      now,
    );
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
