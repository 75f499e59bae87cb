import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { PersonRow } from './person.entity';
import { newId } from '../../common/ids';
import { assertTenant, Tenant } from '../platform/tenant';
import { seedIdSql } from '../../seed/seed-id';
import { rows } from '../../database/sql';

export type { Tenant };

/** One row of a staff import, checked. */
export interface StaffRow {
  name: string;
  email: string;
  phone: string | null;
  department: string | null;
  job_title: string | null;
  site_ids: string[];
  employee_number: string | null;
}

export interface PeopleFilter {
  q?: string;
  canHost?: boolean;
  email?: string;
  limit: number;
  after?: { createdAt: Date; id: string };
}

type Insertable = Parameters<Repository<PersonRow>['insert']>[0];
type Updatable = Parameters<Repository<PersonRow>['update']>[1];

/** People of one organisation and mode; an id of another tenant is simply not found. */
@Injectable()
export class PeopleRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(PersonRow);
  }

  async insert(m: EntityManager, row: PersonRow): Promise<'ok' | 'email_taken'> {
    assertTenant(row);
    try {
      await this.repo(m).insert(row as Insertable);
      return 'ok';
    } catch (e) {
      if ((e as { code?: string; constraint?: string }).code === '23505') return 'email_taken';
      throw e;
    }
  }

  find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<PersonRow | null> {
    assertTenant(tenant);
    const qb = this.repo(m)
      .createQueryBuilder('p')
      .where('p.id = :id AND p.organisationId = :org AND p.livemode = :live', {
        id,
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  async update(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: Partial<PersonRow>,
  ): Promise<'ok' | 'email_taken'> {
    assertTenant(tenant);
    try {
      await this.repo(m).update(
        { id, organisationId: tenant.organisationId, livemode: tenant.livemode },
        changes as Updatable,
      );
      return 'ok';
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return 'email_taken';
      throw e;
    }
  }

  /** Ids among `ids` of people of this tenant (for checking Person answers of custom fields). */
  async existingIds(tenant: Tenant, ids: string[], m?: EntityManager): Promise<Set<string>> {
    assertTenant(tenant);
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await (m ?? this.ds.manager).query(
      `SELECT id FROM visitor.person WHERE organisation_id = $1 AND livemode = $2 AND id = ANY($3)`,
      [tenant.organisationId, tenant.livemode, ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Active people who can host (the plan limit counts these), counted under a transaction-scoped advisory lock
   * of the tenant: concurrent writes that could each add a host take turns, so none counts a stale number.
   */
  async countHostsLocked(m: EntityManager, tenant: Tenant): Promise<number> {
    assertTenant(tenant);
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `visitor.hosts:${tenant.organisationId}:${tenant.livemode}`,
    ]);
    const rows: { n: number }[] = await m.query(
      `SELECT count(*)::int AS n FROM visitor.person WHERE organisation_id = $1 AND livemode = $2 AND can_host AND active`,
      [tenant.organisationId, tenant.livemode],
    );
    return rows[0].n;
  }

  /** Keyset page in (created_at, id) order; one row more than asked tells whether more exist. */
  list(tenant: Tenant, f: PeopleFilter): Promise<PersonRow[]> {
    assertTenant(tenant);
    const qb = this.repo().createQueryBuilder('p').where('p.organisationId = :org AND p.livemode = :live', {
      org: tenant.organisationId,
      live: tenant.livemode,
    });
    if (f.canHost !== undefined) qb.andWhere('p.canHost = :canHost AND p.active', { canHost: f.canHost });
    if (f.email) qb.andWhere('lower(p.email) = lower(:email)', { email: f.email });
    if (f.q) {
      const terms = f.q
        .toLowerCase()
        .split(/[^\p{L}\p{N}@._-]+/u)
        .filter(Boolean)
        .map((t) => `${t.replace(/[&|!():*'\\]/g, '')}:*`)
        .filter((t) => t !== ':*');
      if (terms.length)
        qb.andWhere(`to_tsvector('simple', p.name || ' ' || p.email) @@ to_tsquery('simple', :tsq)`, {
          tsq: terms.join(' & '),
        });
    }
    if (f.after) qb.andWhere('(p.createdAt, p.id) > (:at, :id)', { at: f.after.createdAt, id: f.after.id });
    return qb
      .orderBy('p.createdAt', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .limit(f.limit + 1)
      .getMany();
  }

  /**
   * Staff import: upserts a batch by e-mail (case-insensitive; blank cells keep what the person has; new people are
   * employees, can_host false); returns how many were new.
   */
  async upsertByEmail(m: EntityManager, tenant: Tenant, rows: StaffRow[], now: Date): Promise<number> {
    assertTenant(tenant);
    const res: { inserted: boolean }[] = await m.query(
      `INSERT INTO visitor.person AS p (id, organisation_id, livemode, name, email, phone, department, job_title,
                                        employee_number, site_ids, can_host, active, custom_fields, created_at, updated_at)
       SELECT x.id, $1, $2, x.name, x.email, x.phone, x.department, x.job_title, x.employee_number,
              ARRAY(SELECT jsonb_array_elements_text(x.site_ids)), false, true, '{}', $3, $3
         FROM jsonb_to_recordset($4::jsonb) AS x(id text, name text, email text, phone text, department text,
                                                  job_title text, employee_number text, site_ids jsonb)
       ON CONFLICT (organisation_id, livemode, lower(email)) DO UPDATE
          SET name = EXCLUDED.name, phone = COALESCE(EXCLUDED.phone, p.phone),
              department = COALESCE(EXCLUDED.department, p.department),
              job_title = COALESCE(EXCLUDED.job_title, p.job_title),
              employee_number = COALESCE(EXCLUDED.employee_number, p.employee_number),
              site_ids = CASE WHEN cardinality(EXCLUDED.site_ids) > 0 THEN EXCLUDED.site_ids ELSE p.site_ids END,
              updated_at = EXCLUDED.updated_at
       RETURNING (xmax = 0) AS inserted`,
      [
        tenant.organisationId,
        tenant.livemode,
        now,
        JSON.stringify(rows.map((r) => ({ ...r, id: newId('person') }))),
      ],
    );
    return res.filter((r) => r.inserted).length;
  }

  /**
   * The bulk seeder's hosts (`gatehouse seed --scale N`): `perSite` test-mode hosts at each of the given sites of
   * new organisations, in one INSERT … SELECT; ids derive from the organisation and the row number, so seeding
   * again adds none. Returns how many were new and the hosts' ids, site by site in the given order.
   */
  async seedHosts(
    sites: { organisationId: string; siteId: string }[],
    perSite: number,
  ): Promise<{ inserted: number; ids: string[] }> {
    const [r] = await rows<{ inserted: number; ids: string[] | null }>(
      this.ds,
      `WITH p AS (
         SELECT t.k, i, t.org, t.site, ${seedIdSql('person', `t.org || ':p' || i`)} AS id
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY t(org, site, k), generate_series(1, $3::int) i
       ), ins AS (
         INSERT INTO visitor.person (id, organisation_id, livemode, name, email, site_ids, can_host, active, created_at, updated_at)
         SELECT p.id, p.org, false,
                (ARRAY['Ama','Kofi','Efua','Kwame','Abena','Yaw','Akosua','Kojo','Adwoa','Kwesi'])[1 + (i - 1) % 10] || ' Host',
                'host' || i || '@' || lower(p.org) || '.test', ARRAY[p.site], true, true, now(), now()
           FROM p
         ON CONFLICT (id) DO NOTHING RETURNING 1
       )
       SELECT (SELECT count(*) FROM ins)::int AS inserted, array_agg(p.id ORDER BY p.k, p.i) AS ids FROM p`,
      [sites.map((x) => x.organisationId), sites.map((x) => x.siteId), perSite],
    );
    await this.ds.query(`ANALYZE visitor.person`);
    return { inserted: r.inserted, ids: r.ids ?? [] };
  }
}
