import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { assertTenant, Tenant } from '../platform/tenant';
import { change } from '../../database/sql';
import type { UnitOfWork } from '../../database/unit-of-work';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

export interface VisitorRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  name: string | null;
  phone: string | null;
  email: string | null;
  company: string | null;
  last_visit_at: Date;
  created_at: Date;
  updated_at: Date;
  erased_at: Date | null;
}

/** Visitor records (`visitor.visitor`), matched by phone across visits: tenant-scoped SQL. */
@Injectable()
@HoldsSandboxData(32)
export class VisitorsRepository implements SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's visitors (after their visits). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.visitor WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  /** The visitor (not erased) with this id, or with this phone number (visits match visitors by phone). */
  async findVisitor(
    tenant: Tenant,
    id: string,
    m?: EntityManager,
    by: 'id' | 'phone' = 'id',
  ): Promise<VisitorRow | null> {
    assertTenant(tenant);
    const rows: VisitorRow[] = await this.m(m).query(
      `SELECT * FROM visitor.visitor
        WHERE ${by === 'phone' ? 'phone' : 'id'} = $1 AND organisation_id = $2 AND livemode = $3 AND erased_at IS NULL`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /** Whether the visitor has a visit plan history never hides. */
  async visitorHasActiveVisit(tenant: Tenant, visitorId: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM visitor.visit WHERE visitor_id = $1 AND organisation_id = $2 AND livemode = $3
          AND status IN ('expected', 'awaiting_approval', 'checked_in') LIMIT 1`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
    return rows.length > 0;
  }
}
