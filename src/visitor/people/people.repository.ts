import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { row, rows } from '../../database/sql';
import { assertTenant, Tenant } from '../platform/tenant';
import { seedIdSql } from '../../seed/seed-id';

export type { Tenant };

/** A row of `visitor.person` (a host or an employee of one organisation and mode). */
export interface PersonRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  name: string;
  email: string;
  phone: string | null;
  department: string | null;
  jobTitle: string | null;
  employeeNumber: string | null;
  siteIds: string[];
  canHost: boolean;
  active: boolean;
  customFields: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, organisation_id AS "organisationId", livemode, name, email, phone, department,
  job_title AS "jobTitle", employee_number AS "employeeNumber", site_ids AS "siteIds", can_host AS "canHost",
  active, custom_fields AS "customFields", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The column of each field a change may set (the id and the tenant never change). */
const CHANGEABLE: Record<keyof Omit<PersonRow, 'id' | 'organisationId' | 'livemode'>, string> = {
  name: 'name',
  email: 'email',
  phone: 'phone',
  department: 'department',
  jobTitle: 'job_title',
  employeeNumber: 'employee_number',
  siteIds: 'site_ids',
  canHost: 'can_host',
  active: 'active',
  customFields: 'custom_fields',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** A value as the statement sends it (answers as JSON text: pg would send an array as a PostgreSQL array). */
const param = (field: string, v: unknown) => (field === 'customFields' ? JSON.stringify(v) : v);

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

/** People of one organisation and mode; an id of another tenant is simply not found. */
@Injectable()
export class PeopleRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(m: EntityManager, p: PersonRow): Promise<'ok' | 'email_taken'> {
    assertTenant(p);
    try {
      await m.query(
        `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, phone, department, job_title,
                                     employee_number, site_ids, can_host, active, custom_fields, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        [
          p.id,
          p.organisationId,
          p.livemode,
          p.name,
          p.email,
          p.phone,
          p.department,
          p.jobTitle,
          p.employeeNumber,
          p.siteIds,
          p.canHost,
          p.active,
          JSON.stringify(p.customFields),
          p.createdAt,
          p.updatedAt,
        ],
      );
      return 'ok';
    } catch (e) {
      if ((e as { code?: string; constraint?: string }).code === '23505') return 'email_taken';
      throw e;
    }
  }

  find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<PersonRow | null> {
    assertTenant(tenant);
    return row<PersonRow>(
      m ?? this.ds,
      `SELECT ${COLUMNS} FROM visitor.person
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3${lock ? ' FOR UPDATE' : ''}`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  async update(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: Partial<PersonRow>,
  ): Promise<'ok' | 'email_taken'> {
    assertTenant(tenant);
    const values: unknown[] = [id, tenant.organisationId, tenant.livemode];
    const sets = Object.entries(changes)
      .filter(([, v]) => v !== undefined)
      .map(([field, v]) => {
        if (!Object.prototype.hasOwnProperty.call(CHANGEABLE, field))
          throw new Error(`person field ${field} cannot be changed`);
        return `${CHANGEABLE[field as keyof typeof CHANGEABLE]} = $${values.push(param(field, v))}`;
      });
    if (!sets.length) return 'ok';
    try {
      await m.query(
        `UPDATE visitor.person SET ${sets.join(', ')} WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
        values,
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
    const found = await rows<{ id: string }>(
      m ?? this.ds,
      `SELECT id FROM visitor.person WHERE organisation_id = $1 AND livemode = $2 AND id = ANY($3)`,
      [tenant.organisationId, tenant.livemode, ids],
    );
    return new Set(found.map((r) => r.id));
  }

  /** People of this tenant by e-mail (case-insensitive): lower-cased e-mail → id, for the e-mails that match. */
  async idsByEmail(tenant: Tenant, emails: string[]): Promise<Map<string, string>> {
    assertTenant(tenant);
    if (emails.length === 0) return new Map();
    const found = await rows<{ id: string; email: string }>(
      this.ds,
      `SELECT id, lower(email) AS email FROM visitor.person
        WHERE organisation_id = $1 AND livemode = $2 AND lower(email) = ANY($3)`,
      [tenant.organisationId, tenant.livemode, emails.map((e) => e.toLowerCase())],
    );
    return new Map(found.map((r) => [r.email, r.id]));
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
    const counted = await row<{ n: number }>(
      m,
      `SELECT count(*)::int AS n FROM visitor.person WHERE organisation_id = $1 AND livemode = $2 AND can_host AND active`,
      [tenant.organisationId, tenant.livemode],
    );
    return counted!.n;
  }

  /** Keyset page in (created_at, id) order; one row more than asked tells whether more exist. */
  list(tenant: Tenant, f: PeopleFilter): Promise<PersonRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['organisation_id = $1', 'livemode = $2'];
    if (f.canHost !== undefined) where.push(`can_host = $${values.push(f.canHost)} AND active`);
    if (f.email) where.push(`lower(email) = lower($${values.push(f.email)})`);
    if (f.q) {
      const terms = f.q
        .toLowerCase()
        .split(/[^\p{L}\p{N}@._-]+/u)
        .filter(Boolean)
        .map((t) => `${t.replace(/[&|!():*'\\]/g, '')}:*`)
        .filter((t) => t !== ':*');
      if (terms.length)
        where.push(
          `to_tsvector('simple', name || ' ' || email) @@ to_tsquery('simple', $${values.push(terms.join(' & '))})`,
        );
    }
    if (f.after)
      where.push(`(created_at, id) > ($${values.push(f.after.createdAt)}, $${values.push(f.after.id)})`);
    return rows<PersonRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.person WHERE ${where.join(' AND ')}
        ORDER BY created_at, id LIMIT $${values.push(f.limit + 1)}`,
      values,
    );
  }

  /**
   * Staff import: upserts a batch by e-mail (case-insensitive; blank cells keep what the person has; new people are
   * employees, can_host false); returns how many were new.
   */
  async upsertByEmail(m: EntityManager, tenant: Tenant, staff: StaffRow[], now: Date): Promise<number> {
    assertTenant(tenant);
    const res = await rows<{ inserted: boolean }>(
      m,
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
        JSON.stringify(staff.map((r) => ({ ...r, id: newId('person') }))),
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
