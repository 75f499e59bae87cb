import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { Transactions, UnitOfWork } from '../../database/unit-of-work';
import { BookingsService } from '../bookings/bookings.service';
import { EventsService } from '../events/events.service';
import type { Tenant } from '../platform/tenant';
import { orderedProviders } from '../platform/ordered-providers';
import { Erasure, VISITOR_DATA, VisitorDataHolder } from '../platform/visitor-data';
import { VisitorRecordsService, VisitorRow } from '../visits/visitor-records.service';

/**
 * Permanent erasure of a visitor (DELETE /v1/visitors/{id}) or of a booking's attendee who never became one
 * (DELETE /v1/bookings/{id}/attendee): one transaction that calls `eraseVisitor` on every provider marked
 * `@HoldsVisitorData`, in their order, then, for a visitor, records `visitor.erased`. A new table holding visitor
 * data is covered by its repository's method; nothing here names it.
 */
@Injectable()
export class VisitorErasure implements OnModuleInit {
  private holders: VisitorDataHolder[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly visitors: VisitorRecordsService,
    private readonly bookings: BookingsService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.holders = orderedProviders<VisitorDataHolder>(this.discovery, this.reflector, VISITOR_DATA);
  }

  /** The holders, in the order erasure calls them (for the test that every visitor table is covered). */
  names(): string[] {
    return this.holders.map((h) => h.constructor.name);
  }

  /** Erases the visitor everywhere (including records hidden by plan history); afterwards it is `not_found`. */
  async erase(tenant: Tenant, visitorId: string): Promise<void> {
    await this.tx.run(async (uow) => {
      const visitor = await this.visitors.find(uow, tenant, visitorId);
      if (!visitor) throw ApiError.notFound(`Visitor ${visitorId}`);
      await this.eraseVisitor(uow, tenant, visitor);
    });
  }

  /**
   * Erases a booking's attendee (DELETE /v1/bookings/{id}/attendee). An attendee with a visitor record (matched by
   * phone, as visits match visitors: the one a confirmed booking's visit made) is that visitor, erased as
   * DELETE /v1/visitors/{id} does. Otherwise the booking and every other booking made with the same phone are
   * erased with every copy (their events, messages, stored responses, receivers' answers), without a visit,
   * message or event: nothing is sent. An attendee already erased is left as is.
   */
  async eraseAttendee(tenant: Tenant, bookingId: string): Promise<void> {
    await this.tx.run(async (uow) => {
      const booking = await this.bookings.lock(uow, tenant, bookingId);
      if (!booking) throw ApiError.notFound(`Booking ${bookingId}`);
      const phone = booking.attendeePhone;
      const visitor = phone ? await this.visitors.find(uow, tenant, phone, 'phone') : null;
      if (visitor) return this.eraseVisitor(uow, tenant, visitor);
      await this.runHolders(uow, tenant, {
        visitorId: null,
        phone,
        now: this.clock.now(),
        relatedIds: [booking.id],
      });
    });
  }

  private async eraseVisitor(uow: UnitOfWork, tenant: Tenant, visitor: Pick<VisitorRow, 'id' | 'phone'>) {
    const erasure: Erasure = {
      visitorId: visitor.id,
      phone: visitor.phone,
      now: this.clock.now(),
      relatedIds: [],
    };
    await this.runHolders(uow, tenant, erasure);
    await this.events.record(uow, tenant, 'visitor.erased', {
      id: visitor.id,
      object: 'visitor',
      erased_at: erasure.now.toISOString(),
      // other holders add ids of their own records (bookings) to the erasure; the event names the visits
      visit_ids: erasure.relatedIds.filter((id) => id.startsWith('visit_')),
    });
  }

  private async runHolders(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void> {
    for (const holder of this.holders) await holder.eraseVisitor(uow, tenant, erasure);
  }
}
