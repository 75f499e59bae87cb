import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import type { Mark } from './dto/rollcall.request';
import { change, row, rows } from '../../database/sql';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

/** A roll call with its progress counts. */
export interface RollcallRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  site_id: string;
  status: 'active' | 'closed';
  started_by: string | null;
  started_at: Date;
  closed_by: string | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  total: number;
  unaccounted: number;
  safe: number;
  missing: number;
  needs_help: number;
}

export interface RollcallPersonRow {
  subject_id: string;
  kind: 'visitor' | 'employee';
  name: string | null;
  visit_id: string | null;
  status: 'unaccounted' | Mark;
  note: string | null;
  marked_by: string | null;
  marked_at: Date | null;
}

const SELECT = `
  SELECT r.*, c.total, c.unaccounted, c.safe, c.missing, c.needs_help
    FROM visitor.rollcall r,
    LATERAL (SELECT count(*)::int AS total,
                    count(*) FILTER (WHERE p.status = 'unaccounted')::int AS unaccounted,
                    count(*) FILTER (WHERE p.status = 'safe')::int AS safe,
                    count(*) FILTER (WHERE p.status = 'missing')::int AS missing,
                    count(*) FILTER (WHERE p.status = 'needs_help')::int AS needs_help
               FROM visitor.rollcall_person p WHERE p.rollcall_id = r.id) c`;

/** Roll calls and their people; tenant-scoped SQL. One active roll call per site is a unique index. */
@Injectable()
@HoldsVisitorData(16)
@HoldsSandboxData(16)
export class RollcallsRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's roll calls (their people with them). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.rollcall WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  /**
   * The roll call and its snapshot in the caller's transaction: every visitor checked in at the site now (one
   * row per visitor, with the visit that has them on site) and the employees given, in one consistent read.
   * `conflict` when another roll call is active at the site (the unique index decides, also under concurrency).
   */
  async start(
    m: EntityManager,
    tenant: Tenant,
    r: { id: string; siteId: string; startedBy: string | null; now: Date },
    employeeIds: string[],
  ): Promise<'ok' | 'conflict'> {
    assertTenant(tenant);
    const t = [tenant.organisationId, tenant.livemode];
    try {
      await m.query('SAVEPOINT rollcall_start');
      await m.query(
        `INSERT INTO visitor.rollcall (id, organisation_id, livemode, site_id, status, started_by, started_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'active', $5, $6, $6, $6)`,
        [r.id, ...t, r.siteId, r.startedBy, r.now],
      );
      await m.query('RELEASE SAVEPOINT rollcall_start');
    } catch (e) {
      if ((e as { code?: string }).code !== '23505') throw e;
      await m.query('ROLLBACK TO SAVEPOINT rollcall_start');
      return 'conflict';
    }
    await m.query(
      `INSERT INTO visitor.rollcall_person (rollcall_id, subject_id, kind, name, visit_id, status, position)
       SELECT $1, subject_id, kind, name, visit_id, 'unaccounted', row_number() OVER (ORDER BY kind DESC, name, subject_id)
         FROM (
           (SELECT DISTINCT ON (v.visitor_id) v.visitor_id AS subject_id, 'visitor' AS kind, v.visitor_name AS name,
                   v.visit_id
              FROM published.visits_checked_in v
             WHERE v.organisation_id = $2 AND v.livemode = $3 AND v.site_id = $4
             ORDER BY v.visitor_id, v.checked_in_at DESC)
           UNION ALL
           SELECT p.id, 'employee', p.name, NULL
             FROM published.people_staff p WHERE p.organisation_id = $2 AND p.livemode = $3 AND p.id = ANY($5::text[])
         ) everyone`,
      [r.id, ...t, r.siteId, employeeIds],
    );
    return 'ok';
  }

  async find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<RollcallRow | null> {
    assertTenant(tenant);
    if (lock)
      await (m ?? this.ds.manager).query(
        `SELECT 1 FROM visitor.rollcall WHERE id = $1 AND organisation_id = $2 AND livemode = $3 FOR UPDATE`,
        [id, tenant.organisationId, tenant.livemode],
      );
    return row<RollcallRow>(
      m ?? this.ds,
      `${SELECT} WHERE r.id = $1 AND r.organisation_id = $2 AND r.livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  people(rollcallId: string, m?: EntityManager): Promise<RollcallPersonRow[]> {
    return rows<RollcallPersonRow>(
      m ?? this.ds,
      `SELECT subject_id, kind, name, visit_id, status, note, marked_by, marked_at
         FROM visitor.rollcall_person WHERE rollcall_id = $1 ORDER BY position`,
      [rollcallId],
    );
  }

  /** Marks one person of the roll call; null when they are not on it. */
  async mark(
    m: EntityManager,
    rollcallId: string,
    subjectId: string,
    mark: { status: Mark; note: string | null; markedBy: string | null; at: Date },
  ): Promise<RollcallPersonRow | null> {
    const { rows } = await change<RollcallPersonRow>(
      m,
      `UPDATE visitor.rollcall_person SET status = $3, note = $4, marked_by = $5, marked_at = $6
        WHERE rollcall_id = $1 AND subject_id = $2
       RETURNING subject_id, kind, name, visit_id, status, note, marked_by, marked_at`,
      [rollcallId, subjectId, mark.status, mark.note, mark.markedBy, mark.at],
    );
    return rows[0] ?? null;
  }

  async touch(m: EntityManager, id: string, at: Date): Promise<void> {
    await m.query(`UPDATE visitor.rollcall SET updated_at = $2 WHERE id = $1`, [id, at]);
  }

  /** active → closed; false when it was not active (or not the tenant's). */
  async close(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    closedBy: string | null,
    at: Date,
  ): Promise<boolean> {
    assertTenant(tenant);
    const { affected: n } = await change(
      m,
      `UPDATE visitor.rollcall SET status = 'closed', closed_by = $4, closed_at = $5, updated_at = $5
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3 AND status = 'active'`,
      [id, tenant.organisationId, tenant.livemode, closedBy, at],
    );
    return n > 0;
  }

  /** Keyset page in (created_at, id) order, `limit` rows. */
  list(
    tenant: Tenant,
    f: { siteId?: string; status?: 'active' | 'closed' },
    limit: number,
    after?: CreatedAfter,
  ): Promise<RollcallRow[]> {
    assertTenant(tenant);
    const params: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['r.organisation_id = $1', 'r.livemode = $2'];
    if (f.siteId) where.push(`r.site_id = $${params.push(f.siteId)}`);
    if (f.status) where.push(`r.status = $${params.push(f.status)}`);
    if (after) {
      params.push(new Date(after.createdAt), after.id);
      where.push(`(r.created_at, r.id) > ($${params.length - 1}, $${params.length})`);
    }
    return rows<RollcallRow>(
      this.ds,
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY r.created_at, r.id LIMIT $${params.push(limit)}`,
      params,
    );
  }

  /** Erasure: the visitor stays on the roll calls they were part of (counts hold), without their name. */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.rollcall_person p SET name = NULL, note = NULL
         FROM visitor.rollcall r
        WHERE p.rollcall_id = r.id AND p.subject_id = $1 AND p.kind = 'visitor'
          AND r.organisation_id = $2 AND r.livemode = $3`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
  }
}
