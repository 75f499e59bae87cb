import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery, preparedText } from '../../database/prepared';
import { ISO_TIMESTAMPTZ } from '../../database/timestamps';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import type { FormSchema } from '../forms/custom-fields.validator';
import type { VisitStatus } from './visit-state-machine';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import type { VisitWatchlistResponse } from '../watchlist/dto/watchlist.response';
import type { PassRow } from './passes.repository';
import type { VisitorRow } from './visitors.repository';
import { change, row, rows } from '../../database/sql';
import { seedIdSql } from '../../seed/seed-id';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';
import { ReferenceCache } from '../platform/reference-cache';

export type { PassRow, VisitorRow };

export type { Tenant };

/** A visit row joined with its visitor record, as every read returns it. */
export interface VisitRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  status: VisitStatus;
  type: string;
  source: 'invitation' | 'pre_registration' | 'booking';
  site_id: string;
  gate_id: string | null;
  host_id: string;
  visitor_id: string;
  visitor_name: string | null;
  visitor_phone: string | null;
  visitor_email: string | null;
  visitor_company: string | null;
  purpose: string;
  expected_at: Date | null;
  expected_until: Date | null;
  checked_in_at: Date | null;
  checked_out_at: Date | null;
  cancelled_at: Date | null;
  cancel_reason: string | null;
  decision_outcome: 'approved' | 'denied' | null;
  decided_at: Date | null;
  decided_by: string | null;
  decision_reason: string | null;
  booking_id: string | null;
  pass_channels: string[];
  pass_last_sent_at: Date | null;
  custom_fields: Record<string, unknown>;
  /** The watchlist flag (a summary of the visit's matches), null when it matched nothing. */
  watchlist: VisitWatchlistResponse | null;
  created_at: Date;
  updated_at: Date;
}

/** Columns a visit write may set (snake_case, as stored). */
export type VisitColumns = Partial<
  Omit<VisitRow, 'visitor_name' | 'visitor_phone' | 'visitor_email' | 'visitor_company'>
>;

/** The timestamp columns of a visit row. */
type VisitTimestamp =
  | 'expected_at'
  | 'expected_until'
  | 'checked_in_at'
  | 'checked_out_at'
  | 'cancelled_at'
  | 'decided_at'
  | 'pass_last_sent_at'
  | 'created_at'
  | 'updated_at';

/**
 * A visit as a list page returns it: the timestamps are already the ISO 8601 strings the response shows
 * (UTC, milliseconds), so a page of 100 visits builds no Date objects.
 */
export type VisitListRow = Omit<VisitRow, VisitTimestamp> & {
  [K in VisitTimestamp]: VisitRow[K] extends Date ? string : string | null;
};

export interface VisitFilter {
  status?: VisitStatus;
  siteId?: string;
  hostId?: string;
  expectedFrom?: Date;
  expectedTo?: Date;
  updatedSince?: Date;
  /** The visitor's name contains this (case-insensitive): the console's name filter. */
  visitorName?: string;
  /** Live-mode plan history: visits created before this are omitted unless still active. */
  hiddenBefore: Date | null;
}

/** Statuses plan history never hides. */
export const ACTIVE_STATUSES: readonly VisitStatus[] = ['expected', 'awaiting_approval', 'checked_in'];

const VISIT_SELECT = `
  SELECT v.*, r.name AS visitor_name, r.phone AS visitor_phone, r.email AS visitor_email, r.company AS visitor_company
    FROM visitor.visit v JOIN visitor.visitor r ON r.id = v.visitor_id`;

/** The tenant's current visit form (its latest version, of those the forms domain publishes) as JSON, or no row. */
const CURRENT_FORM = `
  SELECT json_build_object('version', f.version, 'schema', f.schema)
    FROM published.forms_versions f WHERE f.kind = 'visit' AND f.organisation_id = $1 AND f.livemode = $2
   ORDER BY f.version DESC LIMIT 1`;

/**
 * The visitor (matched by phone: inserted, or refreshed on conflict), the visit and its pending pass in one
 * statement, one round trip. The visit and the pass take the visitor's id from the upsert.
 */
const CREATE_VISIT = `
  WITH r AS (
    INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, email, company, last_visit_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)
    ON CONFLICT (organisation_id, livemode, phone) WHERE phone IS NOT NULL DO UPDATE
       SET name = EXCLUDED.name, email = COALESCE(EXCLUDED.email, visitor.email),
           company = COALESCE(EXCLUDED.company, visitor.company), last_visit_at = EXCLUDED.last_visit_at,
           updated_at = EXCLUDED.updated_at
    RETURNING id, name, phone, email, company
  ), v AS (
    INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, gate_id, host_id,
                               visitor_id, purpose, expected_at, expected_until, pass_channels, custom_fields,
                               booking_id, created_at, updated_at)
    SELECT $9, $2, $3, $10, $11, $12, $13, $14, $15, r.id, $16, $17, $18, $19, $20, $24, $8, $8 FROM r
    RETURNING id
  ), p AS (
    INSERT INTO visitor.visit_pass (id, organisation_id, livemode, visit_id, channels, status, created_at)
    SELECT $21, $2, $3, v.id, $22, 'pending', $23 FROM v
  )
  SELECT id, name, phone, email, company,
         EXISTS (SELECT 1 FROM published.watchlist_tenants w WHERE w.organisation_id = $2 AND w.livemode = $3) AS screen
    FROM r`;

/**
 * Visits: tenant-scoped SQL, every statement filtered on organisation and mode. A new visit is written with its
 * visitor record and first pass in one statement (the hot path's one round trip), and erasure empties all three in
 * order; otherwise visitor records are `VisitorsRepository`'s and passes `PassesRepository`'s.
 */
@Injectable()
@HoldsVisitorData(10)
@HoldsSandboxData(30)
export class VisitsRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    private readonly references: ReferenceCache,
  ) {}

  /** Sandbox reset: the test-mode tenant's visits (their passes with them). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.visit WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  /**
   * A new visit with its visitor record and its first pending pass, in the caller's transaction, as one prepared
   * statement. The visitor is the tenant's one with this phone number, created or refreshed with the details given
   * (the latest name, and e-mail and company when given), safe under concurrent creates. Returns it as stored,
   * with `screen`: whether the tenant has any watchlist entry, expired ones included (the visit is screened only
   * then), read from the watchlist's `published.watchlist_tenants` in this writing statement, never cached: an entry
   * committed before it is always seen (decisions: "Screening skipped only on the writing statement's word").
   */
  async createVisit(
    m: EntityManager,
    tenant: Tenant,
    visitor: { id: string; name: string; phone: string; email: string | null; company: string | null },
    visit: Required<
      Pick<
        VisitColumns,
        | 'id'
        | 'status'
        | 'type'
        | 'source'
        | 'site_id'
        | 'gate_id'
        | 'host_id'
        | 'purpose'
        | 'expected_at'
        | 'expected_until'
        | 'pass_channels'
        | 'custom_fields'
        | 'created_at'
      >
    > &
      Pick<VisitColumns, 'booking_id'>,
    pass: Pick<PassRow, 'id' | 'channels' | 'created_at'>,
  ): Promise<Pick<VisitorRow, 'id' | 'name' | 'phone' | 'email' | 'company'> & { screen: boolean }> {
    assertTenant(tenant);
    const values = [
      visitor.id,
      tenant.organisationId,
      tenant.livemode,
      visitor.name,
      visitor.phone,
      visitor.email,
      visitor.company,
      visit.created_at,
      visit.id,
      visit.status,
      visit.type,
      visit.source,
      visit.site_id,
      visit.gate_id,
      visit.host_id,
      visit.purpose,
      visit.expected_at,
      visit.expected_until,
      visit.pass_channels,
      JSON.stringify(visit.custom_fields),
      pass.id,
      pass.channels,
      pass.created_at,
      visit.booking_id ?? null,
    ];
    const rows = await preparedQuery(m, 'visit_create', CREATE_VISIT, values);
    return rows[0] as Pick<VisitorRow, 'id' | 'name' | 'phone' | 'email' | 'company'> & { screen: boolean };
  }

  /**
   * Everything a visit write checks, in one round trip (the hot path of POST /v1/visits): the site with its
   * gates, the host, the type's row, the current visit form. Each is null when absent. They are other domains'
   * rows, read through the views those domains publish (`published.*`). With the organisation's reference
   * `version`, as kept for it when they were read already (`ReferenceCache`; the result is shared and not to be
   * changed).
   */
  lookups(
    tenant: Tenant,
    q: { siteId: string; hostId: string | null; type: string | null },
    version?: string,
  ): Promise<{
    site: { id: string; gates: { id: string }[] } | null;
    host: { active: boolean; can_host: boolean } | null;
    type: { enabled: boolean; preRegistration: boolean } | null;
    form: { version: number; schema: FormSchema } | null;
  }> {
    assertTenant(tenant);
    const key = `visit_lookups ${JSON.stringify([q.siteId, q.hostId, q.type])}`;
    return this.references.read(tenant, version, key, async () => {
      const rows = await preparedQuery<{ site: unknown; host: unknown; type: unknown; form: unknown }>(
        this.ds,
        'visit_lookups',
        `SELECT
           (SELECT json_build_object('id', s.id, 'gates',
                     COALESCE((SELECT json_agg(json_build_object('id', g.id)) FROM published.organisations_gates g WHERE g.site_id = s.id), '[]'::json))
              FROM published.organisations_sites s WHERE s.id = $3 AND s.organisation_id = $1 AND s.livemode = $2) AS site,
           (SELECT json_build_object('active', p.active, 'can_host', p.can_host)
              FROM published.people_hosts p WHERE p.id = $4 AND p.organisation_id = $1 AND p.livemode = $2) AS host,
           (SELECT json_build_object('enabled', t.enabled, 'preRegistration', t.pre_registration)
              FROM published.visit_types_rules t WHERE t.key = $5 AND t.organisation_id = $1 AND t.livemode = $2) AS type,
           (${CURRENT_FORM}) AS form`,
        [tenant.organisationId, tenant.livemode, q.siteId, q.hostId, q.type],
      );
      return rows[0] as never;
    });
  }

  /** The tenant's current visit form, null when it has none (a prepared statement, for reads outside writes). */
  async currentForm(tenant: Tenant): Promise<{ version: number; schema: FormSchema } | null> {
    assertTenant(tenant);
    const [current] = await preparedQuery<{ form: { version: number; schema: FormSchema } | null }>(
      this.ds,
      'visit_form',
      `SELECT (${CURRENT_FORM}) AS form`,
      [tenant.organisationId, tenant.livemode],
    );
    return current.form;
  }

  async find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<VisitRow | null> {
    assertTenant(tenant);
    const rows: VisitRow[] = await this.m(m).query(
      `${VISIT_SELECT} WHERE v.id = $1 AND v.organisation_id = $2 AND v.livemode = $3${lock ? ' FOR UPDATE OF v' : ''}`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /** Whether any visit of the organisation, in either mode, has the type (organisation-wide: types are deleted in both). */
  async anyOfType(m: EntityManager, organisationId: string, type: string): Promise<boolean> {
    const found = await row<{ one: number }>(
      m,
      `SELECT 1 AS one FROM visitor.visit WHERE organisation_id = $1 AND type = $2 LIMIT 1`,
      [organisationId, type],
    );
    return found !== null;
  }

  async update(m: EntityManager, tenant: Tenant, id: string, changes: VisitColumns): Promise<void> {
    assertTenant(tenant);
    const cols = Object.keys(changes);
    if (cols.length === 0) return;
    await m.query(
      `UPDATE visitor.visit SET ${cols.map((c, i) => `${c} = $${i + 4}`).join(', ')}
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [
        id,
        tenant.organisationId,
        tenant.livemode,
        ...cols.map((c) => {
          const v = (changes as Record<string, unknown>)[c];
          return c === 'custom_fields' ? JSON.stringify(v) : v;
        }),
      ],
    );
  }

  /** Stores the visit's watchlist flag (rebuilt by the watchlist from the visit's matches), in the caller's transaction. */
  async setWatchlist(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    flag: VisitWatchlistResponse,
  ): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `UPDATE visitor.visit SET watchlist = $4 WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode, JSON.stringify(flag)],
    );
  }

  /**
   * Keyset page in (created_at, id) order, `limit` rows (the caller asks one more than it shows), timestamps as
   * ISO strings. The limit is part of the statement's text, not a parameter: with it known, PostgreSQL settles on
   * one generic plan for the named statement instead of planning every execution again.
   */
  /** How many of the tenant's visits due in [from, to) (expected then, or walk-ins created then) are in each status. */
  async countByStatus(
    tenant: Tenant,
    from: Date,
    to: Date,
  ): Promise<{ status: VisitStatus; count: number }[]> {
    assertTenant(tenant);
    return rows<{ status: VisitStatus; count: number }>(
      this.ds,
      `SELECT status, count(*)::int AS count FROM visitor.visit
        WHERE organisation_id = $1 AND livemode = $2 AND COALESCE(expected_at, created_at) >= $3
          AND COALESCE(expected_at, created_at) < $4
        GROUP BY status ORDER BY status`,
      [tenant.organisationId, tenant.livemode, from, to],
    );
  }

  async list(tenant: Tenant, f: VisitFilter, limit: number, after?: CreatedAfter): Promise<VisitListRow[]> {
    assertTenant(tenant);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`invalid list limit ${limit}`);
    const params: unknown[] = [tenant.organisationId, tenant.livemode];
    const where: string[] = ['v.organisation_id = $1', 'v.livemode = $2'];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.status) add((p) => `v.status = ${p}`, f.status);
    if (f.siteId) add((p) => `v.site_id = ${p}`, f.siteId);
    if (f.hostId) add((p) => `v.host_id = ${p}`, f.hostId);
    if (f.expectedFrom) add((p) => `v.expected_at >= ${p}`, f.expectedFrom);
    if (f.expectedTo) add((p) => `v.expected_at < ${p}`, f.expectedTo);
    if (f.updatedSince) add((p) => `v.updated_at >= ${p}`, f.updatedSince);
    if (f.visitorName) add((p) => `r.name ILIKE ${p}`, `%${f.visitorName.replace(/[\\%_]/g, '\\$&')}%`);
    if (f.hiddenBefore)
      add(
        (p) => `(v.created_at >= ${p} OR v.status IN ('expected', 'awaiting_approval', 'checked_in'))`,
        f.hiddenBefore,
      );
    if (after) {
      params.push(new Date(after.createdAt), after.id);
      where.push(`(v.created_at, v.id) > ($${params.length - 1}, $${params.length})`);
    }
    const text = `${VISIT_SELECT} WHERE ${where.join(' AND ')} ORDER BY v.created_at, v.id LIMIT ${limit}`;
    // One named statement per filter combination and limit (named after its text).
    return preparedText<VisitListRow>(this.ds, text, params, ISO_TIMESTAMPTZ);
  }

  /**
   * Erases a visitor's personal data everywhere it is stored, in the caller's transaction: the visitor record,
   * the purpose, answers and reasons of its visits, event payloads that carry it (and receivers' answers to
   * their webhook deliveries), its messages and passes' provider errors, and the stored responses of idempotent
   * requests that returned it. Counts stay (rows remain, emptied). Returns the visit ids.
   */
  /**
   * Erasure of the visitor's own records: passes (revoked; a pending one fails), the visitor record and the
   * visits' free text and answers. The visits' ids join the erasure's related ids (their messages go too).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void> {
    assertTenant(tenant);
    const m = uow.manager;
    const { visitorId, now } = erasure;
    const t = [tenant.organisationId, tenant.livemode];
    // Passes first (the pass sender locks a pass, then its visit: the same order, so no deadlock). Waiting here
    // for a send in flight means its message exists by the time messages are erased below.
    // A provider's error text may quote the recipient: it goes too.
    await m.query(
      `UPDATE visitor.visit_pass p SET status = CASE WHEN p.status = 'pending' THEN 'failed' ELSE p.status END,
              error = CASE WHEN p.status = 'pending' OR p.error IS NOT NULL THEN 'visitor erased' END,
              revoked_at = COALESCE(p.revoked_at, $4)
         FROM visitor.visit v
        WHERE p.visit_id = v.id AND v.visitor_id = $1 AND v.organisation_id = $2 AND v.livemode = $3`,
      [visitorId, ...t, now],
    );
    await m.query(
      `UPDATE visitor.visitor SET name = NULL, phone = NULL, email = NULL, company = NULL, erased_at = $4, updated_at = $4
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [visitorId, ...t, now],
    );
    const { rows: visits } = await change<{ id: string }>(
      m,
      `UPDATE visitor.visit SET purpose = '', custom_fields = '{}', cancel_reason = NULL, decision_reason = NULL, updated_at = $4
        WHERE visitor_id = $1 AND organisation_id = $2 AND livemode = $3 RETURNING id`,
      [visitorId, ...t, now],
    );
    erasure.relatedIds.push(...visits.map((v) => v.id));
  }

  /**
   * The bulk seeder's visitor records and visits (`gatehouse seed --scale N`), test mode, per new organisation:
   * `visitors` records and `visits` visits at its site over the last 20 days in every common status (expected,
   * checked in, checked out, cancelled), hosted in turn by its `hosts` (the same number for each organisation,
   * organisation by organisation). One INSERT … SELECT each; ids derive from the organisation and the row number,
   * so seeding again adds none. Returns how many records were new and, for each new visit, its `visit.created`
   * object as stored JSON text (as it was when the visit was created: expected).
   */
  async seedBulk(
    orgs: { organisationId: string; siteId: string }[],
    hosts: string[],
    counts: { visitors: number; visits: number },
  ): Promise<{
    visitors: number;
    visits: { id: string; organisation_id: string; created_at: Date; object: string }[];
  }> {
    const orgIds = orgs.map((o) => o.organisationId);
    const visitorId = (key: string) => seedIdSql('vtr', key);
    const visitors = await rows<unknown>(
      this.ds,
      `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, email, company, last_visit_at, created_at, updated_at)
       SELECT ${visitorId(`o.id || ':v' || i`)}, o.id, false, 'Visitor ' || i,
              '+23324' || lpad((1000000 + i)::text, 7, '0'), 'visitor' || i || '@example.com',
              CASE WHEN i % 3 = 0 THEN 'Company ' || (i % 7) END, now(), now() - interval '20 days', now()
         FROM unnest($1::text[]) o(id), generate_series(1, $2::int) i
       ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [orgIds, counts.visitors],
    );
    const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const visits = await rows<{ id: string; organisation_id: string; created_at: Date; object: string }>(
      this.ds,
      `WITH t AS (
         SELECT o.org, o.site, o.k, cardinality($3::text[]) / cardinality($1::text[]) AS per
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY o(org, site, k)
       ), v AS (
         INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id, purpose,
                                    expected_at, checked_in_at, checked_out_at, cancelled_at, pass_channels, created_at, updated_at)
         SELECT ${seedIdSql('visit', `t.org || ':' || i`)}, t.org, false, st, 'meeting', 'invitation', t.site,
                ($3::text[])[((t.k - 1) * t.per + 1 + i % t.per)::int],
                ${visitorId(`t.org || ':v' || (1 + i % $5::int)`)}, 'Meeting ' || i,
                at, CASE WHEN st IN ('checked_in','checked_out') THEN at END,
                CASE WHEN st = 'checked_out' THEN at + interval '1 hour' END,
                CASE WHEN st = 'cancelled' THEN at - interval '1 day' END,
                ARRAY['whatsapp','sms'], at - interval '2 days', at
           FROM t, generate_series(1, $4::int) i,
                LATERAL (SELECT (ARRAY['checked_out','checked_out','checked_in','expected','cancelled'])[1 + i % 5] AS st,
                                date_trunc('minute', now()) - ((i % 20) || ' days')::interval
                                  + CASE WHEN i % 5 = 3 THEN interval '21 days' ELSE interval '0' END AS at) x
         ON CONFLICT (id) DO NOTHING RETURNING *
       )
       SELECT v.id, v.organisation_id, v.created_at, json_build_object(
                'id', v.id, 'status', 'expected', 'type', v.type, 'source', v.source, 'site_id', v.site_id,
                'gate_id', null, 'host_id', v.host_id,
                'visitor', json_build_object('id', r.id, 'name', r.name, 'phone', r.phone, 'email', r.email,
                                             'company', r.company),
                'purpose', v.purpose, 'expected_at', ${iso('v.expected_at')},
                'expected_until', null, 'checked_in_at', null, 'checked_out_at', null, 'cancelled_at', null,
                'cancel_reason', null, 'decision', null, 'booking_id', null,
                'pass', json_build_object('channels', v.pass_channels, 'last_sent_at', null),
                'custom_fields', '{}'::json,
                'created_at', ${iso('v.created_at')}, 'updated_at', ${iso('v.created_at')})::text AS object
         FROM v JOIN visitor.visitor r ON r.id = v.visitor_id
        ORDER BY v.organisation_id, v.id`,
      [orgIds, orgs.map((o) => o.siteId), hosts, counts.visits, counts.visitors],
    );
    for (const table of ['visitor.visitor', 'visitor.visit']) await this.ds.query(`ANALYZE ${table}`);
    return { visitors: visitors.length, visits };
  }

  /**
   * Expected visits whose window ended before `before`, locked for the no-show job. A visit another transaction
   * holds for a moment (its pass being recorded as sent, a change) is waited for, not skipped until the next
   * run; a concurrent run of the job waits too and then finds those visits no longer `expected` (both lock in
   * the same total order, the id breaking ties, so they cannot deadlock).
   */
  async dueNoShows(m: EntityManager, before: Date, limit: number): Promise<VisitRow[]> {
    return m.query(
      `${VISIT_SELECT} WHERE v.status = 'expected' AND COALESCE(v.expected_until, v.expected_at) < $1
        ORDER BY COALESCE(v.expected_until, v.expected_at), v.id LIMIT $2 FOR UPDATE OF v`,
      [before, limit],
    );
  }
}
