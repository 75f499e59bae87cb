import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MessageRow } from './message.entity';

@Injectable()
export class MessagesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(row: MessageRow): Promise<void> {
    if (!row.organisationId || typeof row.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    await this.ds.getRepository(MessageRow).insert(row);
  }

  /** Newest first, keyset-paged on (created_at, id). */
  list(
    tenant: { organisationId: string; livemode: boolean },
    limit: number,
    before?: { createdAt: Date; id: string },
  ): Promise<MessageRow[]> {
    const qb = this.ds
      .getRepository(MessageRow)
      .createQueryBuilder('m')
      .where('m.organisationId = :org AND m.livemode = :live', {
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    if (before) qb.andWhere('(m.createdAt, m.id) < (:at, :id)', { at: before.createdAt, id: before.id });
    return qb.orderBy('m.createdAt', 'DESC').addOrderBy('m.id', 'DESC').limit(limit).getMany();
  }
}
