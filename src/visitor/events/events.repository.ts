import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import {
  aboutVisitorSql,
  Erasure,
  erasedVisitSql,
  readableJsonbSql,
  HoldsVisitorData,
  VisitorDataHolder,
} from '../platform/visitor-data';
import { assertTenant, Tenant } from '../platform/tenant';
import { EventRow } from './event.entity';

export interface EventFilter {
  /** The types the reader may see (`readableEventTypes`): events of other types are not there for it. */
  readable: readonly string[];
  type?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only events about this object (`data.object.id`): a visit's timeline in the console. */
  objectId?: string;
}

/** The event table (the outbox's first half): written in the caller's transaction, read by /v1/events. */
@Injectable()
@HoldsVisitorData(30)
export class EventsRepository implements VisitorDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(m: EntityManager, row: EventRow): Promise<void> {
    assertTenant(row);
    await m.query(
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.organisationId, row.livemode, row.type, row.createdAt, row.body],
    );
  }

  /**
   * Events of the tenant created at or after `since` (the retention window: older events are gone for every
   * reader even before the hourly purge deletes them) of the types the reader may see, newest first, with the
   * filters of GET /v1/events. Both limits are in the statement, so pages and cursors see only those events.
   */
  list(
    tenant: Tenant,
    since: Date,
    f: EventFilter,
    limit: number,
    before?: CreatedAfter,
  ): Promise<EventRow[]> {
    assertTenant(tenant);
    const q = this.ds
      .getRepository(EventRow)
      .createQueryBuilder('e')
      .where('e.organisationId = :org AND e.livemode = :live AND e.createdAt >= :since', {
        org: tenant.organisationId,
        live: tenant.livemode,
        since,
      })
      .andWhere('e.type = ANY(:readable)', { readable: f.readable });
    if (f.type) q.andWhere('e.type = :type', { type: f.type });
    if (f.createdAfter) q.andWhere('e.createdAt > :ca', { ca: f.createdAfter });
    if (f.createdBefore) q.andWhere('e.createdAt < :cb', { cb: f.createdBefore });
    if (f.objectId) q.andWhere(`(e.body::jsonb #>> '{data,object,id}') = :oid`, { oid: f.objectId });
    if (before)
      q.andWhere('(e.createdAt, e.id) < (:at, :id)', { at: new Date(before.createdAt), id: before.id });
    return q.orderBy('e.createdAt', 'DESC').addOrderBy('e.id', 'DESC').limit(limit).getMany();
  }

  /** The tenant's event, if it was created at or after `since` (the retention window) and is of a `readable` type. */
  find(tenant: Tenant, id: string, since: Date, readable: readonly string[]): Promise<EventRow | null> {
    assertTenant(tenant);
    return this.ds
      .getRepository(EventRow)
      .createQueryBuilder('e')
      .where('e.id = :id AND e.organisationId = :org AND e.livemode = :live AND e.createdAt >= :since', {
        id,
        org: tenant.organisationId,
        live: tenant.livemode,
        since,
      })
      .andWhere('e.type = ANY(:readable)', { readable })
      .getOne();
  }

  /** Deletes events created before `before` (their deliveries and attempts go with them); returns how many. */
  async purgeBefore(before: Date): Promise<number> {
    const [, n] = (await this.ds.query(`DELETE FROM visitor.event WHERE created_at < $1`, [before])) as [
      unknown,
      number,
    ];
    return Number(n ?? 0);
  }

  /**
   * Erasure: event payloads about the visitor keep the visit snapshot's ids and statuses; the visitor's details,
   * answers, purpose and the reasons given on cancel and on a decision go.
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.event SET body = (${erasedVisitSql(readableJsonbSql('body'), '{data,object}')})::text
        WHERE organisation_id = $2 AND livemode = $3 AND ${aboutVisitorSql('body', '{data,object}')}`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
  }
}
