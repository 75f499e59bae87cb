import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Plan } from '../platform/plans';
import { assertTenant, Tenant } from '../platform/tenant';
import { change } from '../../database/sql';
import { preparedQuery } from '../../database/prepared';

export interface OrganisationRow {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
  country: string;
  time_zone: string;
  wallet_amount: string;
  wallet_currency: string;
  rate_limit_per_minute: number | null;
  history_days: number | null;
  audit_days: number | null;
  ip_allow_list: string[];
  created_at: Date;
  updated_at: Date;
}

export interface SiteRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  name: string;
  time_zone: string;
  requires_host_approval: boolean;
  /** A check-in of a visit with a high-severity watchlist match waits for approval (see watchlist). */
  watchlist_holds_check_in: boolean;
  created_at: Date;
  updated_at: Date;
  gates: { id: string; name: string }[];
}

const ORG_COLUMNS = `id, name, slug, plan, country, time_zone, wallet_amount::text, wallet_currency, rate_limit_per_minute,
  history_days, audit_days, ip_allow_list::text[] AS ip_allow_list, created_at, updated_at`;

const SITE_SELECT = `
  SELECT s.id, s.organisation_id, s.livemode, s.name, s.time_zone, s.requires_host_approval, s.watchlist_holds_check_in,
         s.created_at, s.updated_at,
         COALESCE((SELECT json_agg(json_build_object('id', g.id, 'name', g.name) ORDER BY g.position, g.id)
                     FROM visitor.gate g WHERE g.site_id = s.id), '[]'::json) AS gates
    FROM visitor.site s`;

/** Organisations (one row for both modes) and their sites and gates (per mode). */
@Injectable()
export class OrganisationsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  async insertOrganisation(
    m: EntityManager,
    o: Omit<OrganisationRow, 'wallet_amount'> & { wallet_amount: number },
  ) {
    try {
      await m.query(
        `INSERT INTO visitor.organisation (id, name, slug, plan, country, time_zone, wallet_amount, wallet_currency,
           rate_limit_per_minute, history_days, audit_days, ip_allow_list, created_at, updated_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12::cidr[],$13,$14)`,
        [
          o.id,
          o.name,
          o.slug,
          o.plan,
          o.country,
          o.time_zone,
          o.wallet_amount,
          o.wallet_currency,
          o.rate_limit_per_minute,
          o.history_days,
          o.audit_days,
          o.ip_allow_list,
          o.created_at,
          o.updated_at,
        ],
      );
      return 'ok' as const;
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return 'slug_taken' as const;
      throw e;
    }
  }

  /** Prepared (planned once per connection): every console request reads its organisation. */
  async findOrganisation(id: string, m?: EntityManager): Promise<OrganisationRow | null> {
    const rows = await preparedQuery<OrganisationRow>(
      this.m(m),
      'organisation_by_id',
      `SELECT ${ORG_COLUMNS} FROM visitor.organisation WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async findOrganisationBySlugOrId(ref: string): Promise<OrganisationRow | null> {
    const rows: OrganisationRow[] = await this.ds.query(
      `SELECT ${ORG_COLUMNS} FROM visitor.organisation WHERE id = $1 OR slug = $1`,
      [ref],
    );
    return rows[0] ?? null;
  }

  listOrganisations(): Promise<OrganisationRow[]> {
    return this.ds.query(`SELECT ${ORG_COLUMNS} FROM visitor.organisation ORDER BY created_at, id`);
  }

  async updateOrganisation(
    m: EntityManager,
    id: string,
    changes: Partial<
      Pick<
        OrganisationRow,
        'plan' | 'name' | 'rate_limit_per_minute' | 'history_days' | 'audit_days' | 'ip_allow_list'
      >
    >,
    now: Date,
  ): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [id, now];
    for (const [col, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      params.push(value);
      sets.push(`${col} = $${params.length}${col === 'ip_allow_list' ? '::cidr[]' : ''}`);
    }
    if (sets.length === 0) return;
    await m.query(
      `UPDATE visitor.organisation SET ${sets.join(', ')}, updated_at = $2 WHERE id = $1`,
      params,
    );
  }

  async insertSite(
    m: EntityManager,
    s: Omit<SiteRow, 'gates'> & { gates: { id: string; name: string }[] },
  ): Promise<void> {
    assertTenant({ organisationId: s.organisation_id, livemode: s.livemode });
    await m.query(
      `INSERT INTO visitor.site (id, organisation_id, livemode, name, time_zone, requires_host_approval,
         watchlist_holds_check_in, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
      [
        s.id,
        s.organisation_id,
        s.livemode,
        s.name,
        s.time_zone,
        s.requires_host_approval,
        s.watchlist_holds_check_in,
        s.created_at,
        s.updated_at,
      ],
    );
    for (const [position, g] of s.gates.entries()) {
      await m.query(
        `INSERT INTO visitor.gate (id, site_id, organisation_id, livemode, name, position, created_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7)`,
        [g.id, s.id, s.organisation_id, s.livemode, g.name, position, s.created_at],
      );
    }
  }

  /** Sets a site's watchlist hold; the site's mode, or null when the organisation has no such site. */
  async setWatchlistHold(
    m: EntityManager,
    organisationId: string,
    siteId: string,
    holds: boolean,
    now: Date,
  ): Promise<boolean | null> {
    const { rows } = await change<{ livemode: boolean }>(
      m,
      `UPDATE visitor.site SET watchlist_holds_check_in = $3, updated_at = $4
        WHERE id = $1 AND organisation_id = $2 RETURNING livemode`,
      [siteId, organisationId, holds, now],
    );
    return rows[0]?.livemode ?? null;
  }

  async findSite(tenant: Tenant, id: string, m?: EntityManager): Promise<SiteRow | null> {
    assertTenant(tenant);
    const rows: SiteRow[] = await this.m(m).query(
      `${SITE_SELECT} WHERE s.id = $1 AND s.organisation_id = $2 AND s.livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /** Keyset page in (created_at, id) order, `limit + 1` rows; prepared (every console list page reads its sites). */
  listSites(tenant: Tenant, limit: number, after?: { createdAt: string; id: string }): Promise<SiteRow[]> {
    assertTenant(tenant);
    const params: unknown[] = [tenant.organisationId, tenant.livemode, limit + 1];
    let where = '';
    if (after) {
      params.push(after.createdAt, after.id);
      where = `AND (s.created_at, s.id) > ($4::timestamptz, $5)`;
    }
    return preparedQuery<SiteRow>(
      this.ds,
      after ? 'sites_page_after' : 'sites_page',
      `${SITE_SELECT} WHERE s.organisation_id = $1 AND s.livemode = $2 ${where}
        ORDER BY s.created_at, s.id LIMIT $3`,
      params,
    );
  }

  /** Ids of the given sites that exist in this tenant (for checking references such as a person's sites). */
  async existingSiteIds(tenant: Tenant, ids: string[], m?: EntityManager): Promise<Set<string>> {
    assertTenant(tenant);
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await this.m(m).query(
      `SELECT id FROM visitor.site WHERE organisation_id = $1 AND livemode = $2 AND id = ANY($3)`,
      [tenant.organisationId, tenant.livemode, ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Every site of the tenant, id and name (the staff import resolves names). */
  siteNames(tenant: Tenant): Promise<{ id: string; name: string }[]> {
    assertTenant(tenant);
    return this.ds.query(`SELECT id, name FROM visitor.site WHERE organisation_id = $1 AND livemode = $2`, [
      tenant.organisationId,
      tenant.livemode,
    ]);
  }
}
