import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { UnitOfWork } from '../../database/unit-of-work';
import { takePlaceSql } from '../booking-types/booking-types.repository';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import {
  aboutRecordsSql,
  Erasure,
  erasedBookingSql,
  HoldsVisitorData,
  readableJsonbSql,
  VisitorDataHolder,
} from '../platform/visitor-data';
import type { BookingStatus } from './booking-state-machine';
import { BookingEntity } from './booking.entity';
import { change } from '../../database/sql';

export interface BookingFilter {
  bookingTypeId?: string;
  status?: BookingStatus;
  startsFrom?: Date;
  startsTo?: Date;
}

/** A new booking with the place it takes in its slot, in one statement: no row is inserted when the slot is full. */
const INSERT_TAKING_PLACE = `
  WITH place AS (${takePlaceSql({ type: '$4', start: '$7', org: '$2', live: '$3', capacity: '$20' })})
  INSERT INTO visitor.booking (id, organisation_id, livemode, booking_type_id, status, source, starts_at, ends_at,
    site_id, host_id, attendee_name, attendee_phone, attendee_email, attendee_company, custom_fields, visit_id,
    confirm_by, confirmed_at, created_at, updated_at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19 FROM place
  RETURNING id`;

/**
 * Bookings: tenant-scoped SQL. Attendees are personal data: erased with the visitor they became or share a phone
 * with, or on their own (DELETE /v1/bookings/{id}/attendee).
 */
@Injectable()
@HoldsVisitorData(5)
export class BookingsRepository implements VisitorDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(BookingEntity);
  }

  /** Inserts the booking if its slot has a place left (taking it); false when the slot is full. */
  async insertTakingPlace(m: EntityManager, b: BookingEntity, capacity: number): Promise<boolean> {
    assertTenant(b);
    const rows = await preparedQuery(m, 'booking_insert_taking_place', INSERT_TAKING_PLACE, [
      b.id,
      b.organisationId,
      b.livemode,
      b.bookingTypeId,
      b.status,
      b.source,
      b.startsAt,
      b.endsAt,
      b.siteId,
      b.hostId,
      b.attendeeName,
      b.attendeePhone,
      b.attendeeEmail,
      b.attendeeCompany,
      JSON.stringify(b.customFields),
      b.visitId,
      b.confirmBy,
      b.confirmedAt,
      b.createdAt,
      capacity,
    ]);
    return rows.length === 1;
  }

  find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<BookingEntity | null> {
    assertTenant(tenant);
    const qb = this.repo(m)
      .createQueryBuilder('b')
      .where('b.id = :id AND b.organisationId = :org AND b.livemode = :live', {
        id,
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  async update(m: EntityManager, tenant: Tenant, id: string, changes: Partial<BookingEntity>): Promise<void> {
    assertTenant(tenant);
    await this.repo(m).update(
      { id, organisationId: tenant.organisationId, livemode: tenant.livemode },
      changes as Parameters<Repository<BookingEntity>['update']>[1],
    );
  }

  /** Keyset page in (created_at, id) order, `limit` rows. */
  list(tenant: Tenant, f: BookingFilter, limit: number, after?: CreatedAfter): Promise<BookingEntity[]> {
    assertTenant(tenant);
    const qb = this.repo().createQueryBuilder('b').where('b.organisationId = :org AND b.livemode = :live', {
      org: tenant.organisationId,
      live: tenant.livemode,
    });
    if (f.bookingTypeId) qb.andWhere('b.bookingTypeId = :type', { type: f.bookingTypeId });
    if (f.status) qb.andWhere('b.status = :status', { status: f.status });
    if (f.startsFrom) qb.andWhere('b.startsAt >= :from', { from: f.startsFrom });
    if (f.startsTo) qb.andWhere('b.startsAt < :to', { to: f.startsTo });
    if (after)
      qb.andWhere('(b.createdAt, b.id) > (:at::timestamptz, :id)', { at: after.createdAt, id: after.id });
    return qb.orderBy('b.createdAt', 'ASC').addOrderBy('b.id', 'ASC').limit(limit).getMany();
  }

  /**
   * Pending bookings whose confirmation window has closed, locked for the caller's transaction; rows another
   * worker holds are skipped (SKIP LOCKED), so several workers expire disjoint batches.
   */
  async lockDueExpiries(m: EntityManager, now: Date, limit: number): Promise<BookingEntity[]> {
    return this.repo(m)
      .createQueryBuilder('b')
      .where(`b.status = 'pending' AND b.confirmBy <= :now`, { now })
      .orderBy('b.confirmBy', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  /**
   * Erasure: the person's bookings (whose visit they became, made with their phone, or the booking an attendee
   * erasure starts from) lose the attendee's details, answers and the decline and cancel reasons; their ids join
   * the erasure so messages, stored responses and webhook answers about them are erased too. Events carrying
   * those bookings lose the same fields (the events domain scrubs only visit objects).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void> {
    assertTenant(tenant);
    const { rows } = await change<{ id: string }>(
      uow.manager,
      `UPDATE visitor.booking b
          SET attendee_name = NULL, attendee_phone = NULL, attendee_email = NULL, attendee_company = NULL,
              custom_fields = '{}', decline_reason = NULL, cancel_reason = NULL
        WHERE b.organisation_id = $2 AND b.livemode = $3
          AND (b.visit_id IN (SELECT id FROM visitor.visit WHERE visitor_id = $1 AND organisation_id = $2 AND livemode = $3)
               OR b.attendee_phone = $4 OR b.id = ANY($5::text[]))
        RETURNING b.id`,
      [erasure.visitorId, tenant.organisationId, tenant.livemode, erasure.phone, erasure.relatedIds],
    );
    const ids = rows.map((r) => r.id).filter((id) => !erasure.relatedIds.includes(id));
    erasure.relatedIds.push(...ids);
    const all = rows.map((r) => r.id);
    if (!all.length) return;
    // Only bodies that mention one of the bookings are read as jsonb, with lone-surrogate escapes mended, so one
    // unreadable body elsewhere in the organisation cannot block the erasure (as aboutVisitorSql does for visits).
    await uow.manager.query(
      `UPDATE visitor.event
          SET body = (${erasedBookingSql(readableJsonbSql('body'), '{data,object}')})::text
        WHERE organisation_id = $2 AND livemode = $3 AND type LIKE 'booking.%'
          AND ${aboutRecordsSql('body', '{data,object}', '$1')}`,
      [all, tenant.organisationId, tenant.livemode],
    );
  }
}
