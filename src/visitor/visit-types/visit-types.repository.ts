import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import { DataSource } from 'typeorm';
import { VisitTypeRow } from './visit-type.entity';

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

  async upsert(row: VisitTypeRow): Promise<void> {
    await this.ds
      .getRepository(VisitTypeRow)
      .createQueryBuilder()
      .insert()
      .values(row)
      .orUpdate(['name', 'enabled', 'pre_registration', 'updated_at'], ['organisation_id', 'livemode', 'key'])
      .execute();
  }
}
