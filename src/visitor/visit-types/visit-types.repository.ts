import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import { DataSource, EntityManager } from 'typeorm';
import { VisitTypeRow } from './visit-type.entity';
import { change } from '../../database/sql';

@Injectable()
export class VisitTypesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  all(tenant: Tenant): Promise<VisitTypeRow[]> {
    if (!tenant.organisationId || typeof tenant.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    return this.ds.getRepository(VisitTypeRow).find({
      where: { organisationId: tenant.organisationId, livemode: tenant.livemode },
      order: { key: 'ASC' },
    });
  }

  /** One type's row (null for a built-in type never changed, or an unknown key). */
  async one(tenant: Tenant, key: string): Promise<Pick<VisitTypeRow, 'enabled' | 'preRegistration'> | null> {
    const rows: { enabled: boolean; pre_registration: boolean }[] = await this.ds.query(
      `SELECT enabled, pre_registration FROM visitor.visit_type WHERE organisation_id = $1 AND livemode = $2 AND key = $3`,
      [tenant.organisationId, tenant.livemode, key],
    );
    return rows[0] ? { enabled: rows[0].enabled, preRegistration: rows[0].pre_registration } : null;
  }

  /** One type's full row in the caller's transaction, locked for a change (null when absent). */
  async lockOne(m: EntityManager, tenant: Tenant, key: string): Promise<VisitTypeRow | null> {
    return m
      .getRepository(VisitTypeRow)
      .createQueryBuilder('t')
      .where('t.organisationId = :org AND t.livemode = :live AND t.key = :key', {
        org: tenant.organisationId,
        live: tenant.livemode,
        key,
      })
      .setLock('pessimistic_write')
      .getOne();
  }

  async upsert(m: EntityManager, row: VisitTypeRow): Promise<void> {
    await m
      .getRepository(VisitTypeRow)
      .createQueryBuilder()
      .insert()
      .values(row)
      .orUpdate(['name', 'enabled', 'pre_registration', 'updated_at'], ['organisation_id', 'livemode', 'key'])
      .execute();
  }

  /** Whether any visit of the organisation, in either mode, has this type. */
  async inUse(m: EntityManager, organisationId: string, key: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM visitor.visit WHERE organisation_id = $1 AND type = $2 LIMIT 1`,
      [organisationId, key],
    );
    return rows.length > 0;
  }

  /** Deletes the type's rows in both modes; returns how many there were. */
  async deleteEverywhere(m: EntityManager, organisationId: string, key: string): Promise<number> {
    const { affected: n } = await change(
      m,
      `DELETE FROM visitor.visit_type WHERE organisation_id = $1 AND key = $2`,
      [organisationId, key],
    );
    return n;
  }
}
