import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { MessageRow } from './message.entity';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import { assertTenant, Tenant } from '../platform/tenant';

@Injectable()
@HoldsVisitorData(40)
export class MessagesRepository implements VisitorDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** `manager`: the caller's transaction, so the row commits (or not) with the change that sent it. */
  async insert(row: MessageRow, manager?: EntityManager): Promise<void> {
    if (!row.organisationId || typeof row.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    await (manager ?? this.ds.manager).getRepository(MessageRow).insert(row);
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

  /** Erasure: messages to the visitor or about their visits keep only their status and channel. */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.message SET recipient = '[erased]', body = '[erased]', subject = NULL,
              error = CASE WHEN error IS NOT NULL THEN '[erased]' END
        WHERE organisation_id = $2 AND livemode = $3 AND (related_id = ANY($1) OR related_id = $4)`,
      [relatedIds, tenant.organisationId, tenant.livemode, visitorId],
    );
  }
}
