import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import type { Tenant } from '../platform/tenant';
import { Erasure, VISITOR_DATA, VisitorDataHolder } from '../platform/visitor-data';
import { VisitsRepository } from '../visits/visits.repository';

/**
 * Permanent erasure of a visitor (DELETE /v1/visitors/{id}): one transaction that calls `eraseVisitor` on every
 * provider marked `@HoldsVisitorData`, in their order, then records `visitor.erased`. A new table holding visitor
 * data is covered by its repository's method; nothing here names it.
 */
@Injectable()
export class VisitorErasure implements OnModuleInit {
  private holders: VisitorDataHolder[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly visits: VisitsRepository,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    const found = new Map<VisitorDataHolder, number>();
    for (const w of this.discovery.getProviders()) {
      if (!w.metatype || !w.instance) continue;
      const order = this.reflector.get<number | undefined>(VISITOR_DATA, w.metatype);
      if (order !== undefined) found.set(w.instance as VisitorDataHolder, order);
    }
    this.holders = [...found].sort((a, b) => a[1] - b[1]).map(([holder]) => holder);
  }

  /** The holders, in the order erasure calls them (for the test that every visitor table is covered). */
  names(): string[] {
    return this.holders.map((h) => h.constructor.name);
  }

  /** Erases the visitor everywhere (including records hidden by plan history); afterwards it is `not_found`. */
  async erase(tenant: Tenant, visitorId: string): Promise<void> {
    await this.tx.run(async (uow) => {
      if (!(await this.visits.findVisitor(tenant, visitorId, uow.manager)))
        throw ApiError.notFound(`Visitor ${visitorId}`);
      const erasure: Erasure = { visitorId, now: this.clock.now(), relatedIds: [] };
      for (const holder of this.holders) await holder.eraseVisitor(uow, tenant, erasure);
      await this.events.record(uow, tenant, 'visitor.erased', {
        id: visitorId,
        object: 'visitor',
        erased_at: erasure.now.toISOString(),
        // other holders add ids of their own records (bookings) to the erasure; the event names the visits
        visit_ids: erasure.relatedIds.filter((id) => id.startsWith('visit_')),
      });
    });
  }
}
