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
