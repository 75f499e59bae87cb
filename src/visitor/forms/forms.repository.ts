import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { FormRow } from './form.entity';

@Injectable()
export class FormsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  latest(
    tenant: { organisationId: string; livemode: boolean },
    kind: 'visit' | 'person',
    m?: EntityManager,
  ): Promise<FormRow | null> {
    if (!tenant.organisationId || typeof tenant.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    return (m ?? this.ds.manager)
      .getRepository(FormRow)
      .createQueryBuilder('f')
      .where('f.organisationId = :org AND f.livemode = :live AND f.kind = :kind', {
        org: tenant.organisationId,
        live: tenant.livemode,
        kind,
      })
      .orderBy('f.version', 'DESC')
      .limit(1)
      .getOne();
  }

  async save(m: EntityManager, row: FormRow): Promise<void> {
    await m.getRepository(FormRow).insert(row as Parameters<Repository<FormRow>['insert']>[0]);
  }
}
