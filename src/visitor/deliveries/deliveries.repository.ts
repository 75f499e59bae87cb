import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import type { DeliveryStatus } from './dto/delivery.request';
import { change } from '../../database/sql';
import type { UnitOfWork } from '../../database/unit-of-work';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

export interface DeliveryRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  site_id: string;
  recipient_id: string;
  status: DeliveryStatus;
  carrier: string | null;
  tracking_number: string | null;
  description: string;
  photo_file_id: string | null;
  received_at: Date;
  received_by: string | null;
  collected_at: Date | null;
  collected_by: string | null;
  collected_by_name: string | null;
  signature_file_id: string | null;
  collection_photo_file_id: string | null;
  returned_at: Date | null;
  return_reason: string | null;
  notified_at: Date | null;
  notified_channel: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryFilter {
  siteId?: string;
  recipientId?: string;
  status?: DeliveryStatus;
  receivedFrom?: Date;
  receivedTo?: Date;
}

/** Deliveries: tenant-scoped SQL. A delivery names people (its recipient), not visitors: no erasure here. */
@Injectable()
@HoldsSandboxData(18)
export class DeliveriesRepository implements SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's deliveries. */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.delivery WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  async insert(m: EntityManager, d: DeliveryRow): Promise<void> {
    assertTenant({ organisationId: d.organisation_id, livemode: d.livemode });
    const cols = Object.keys(d) as (keyof DeliveryRow)[];
    await m.query(
      `INSERT INTO visitor.delivery (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
      cols.map((c) => d[c]),
    );
  }

  async find(tenant: Tenant, id: string, m?: EntityManager): Promise<DeliveryRow | null> {
    assertTenant(tenant);
    const rows: DeliveryRow[] = await (m ?? this.ds.manager).query(
      `SELECT * FROM visitor.delivery WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves a delivery out of `received` in one statement: of two concurrent calls exactly one finds it
   * `received` and changes it. Returns the changed row, or null when it was not `received` (or not the tenant's).
   */
  async leaveReceived(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: Partial<DeliveryRow> & { status: DeliveryStatus },
  ): Promise<DeliveryRow | null> {
    assertTenant(tenant);
    const cols = Object.keys(changes) as (keyof DeliveryRow)[];
    const { rows } = await change<DeliveryRow>(
      m,
      `UPDATE visitor.delivery SET ${cols.map((c, i) => `${c} = $${i + 4}`).join(', ')}
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3 AND status = 'received' RETURNING *`,
      [id, tenant.organisationId, tenant.livemode, ...cols.map((c) => changes[c])],
    );
    return rows[0] ?? null;
  }

  async setNotified(tenant: Tenant, id: string, channel: string, at: Date): Promise<void> {
    assertTenant(tenant);
    await this.ds.query(
      `UPDATE visitor.delivery SET notified_at = $4, notified_channel = $5
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode, at, channel],
    );
  }

  /** Keyset page in (created_at, id) order, `limit` rows. */
  list(tenant: Tenant, f: DeliveryFilter, limit: number, after?: CreatedAfter): Promise<DeliveryRow[]> {
    assertTenant(tenant);
    const params: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['organisation_id = $1', 'livemode = $2'];
    const add = (sql: (p: string) => string, v: unknown) => {
      params.push(v);
      where.push(sql(`$${params.length}`));
    };
    if (f.siteId) add((p) => `site_id = ${p}`, f.siteId);
    if (f.recipientId) add((p) => `recipient_id = ${p}`, f.recipientId);
    if (f.status) add((p) => `status = ${p}`, f.status);
    if (f.receivedFrom) add((p) => `received_at >= ${p}`, f.receivedFrom);
    if (f.receivedTo) add((p) => `received_at < ${p}`, f.receivedTo);
    if (after) {
      params.push(new Date(after.createdAt), after.id);
      where.push(`(created_at, id) > ($${params.length - 1}, $${params.length})`);
    }
    params.push(limit);
    return this.ds.query(
      `SELECT * FROM visitor.delivery WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT $${params.length}`,
      params,
    );
  }
}
