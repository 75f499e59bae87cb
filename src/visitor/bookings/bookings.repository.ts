import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { change, row, rows } from '../../database/sql';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import type { BookingStatus } from './booking-state-machine';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

/** A booking of one slot of a booking type, with its attendee (personal data: erased with the visitor). */
export interface BookingRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  bookingTypeId: string;
  status: BookingStatus;
  source: string;
  startsAt: Date;
  endsAt: Date;
  siteId: string;
  hostId: string;
  attendeeName: string | null;
  attendeePhone: string | null;
  attendeeEmail: string | null;
  attendeeCompany: string | null;
  customFields: Record<string, unknown>;
  visitId: string | null;
  confirmBy: Date | null;
  confirmedAt: Date | null;
  declinedAt: Date | null;
  declineReason: string | null;
  shareReasonWithAttendee: boolean;
  expiredAt: Date | null;
  cancelledAt: Date | null;
  cancelReason: string | null;
  rescheduledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Every field but the id and the tenant, with its column: what an insert writes and a change may set. */
const COLUMN: Record<Exclude<keyof BookingRow, 'id' | 'organisationId' | 'livemode'>, string> = {
  bookingTypeId: 'booking_type_id',
  status: 'status',
  source: 'source',
  startsAt: 'starts_at',
  endsAt: 'ends_at',
  siteId: 'site_id',
  hostId: 'host_id',
  attendeeName: 'attendee_name',
  attendeePhone: 'attendee_phone',
  attendeeEmail: 'attendee_email',
  attendeeCompany: 'attendee_company',
  customFields: 'custom_fields',
  visitId: 'visit_id',
  confirmBy: 'confirm_by',
  confirmedAt: 'confirmed_at',
  declinedAt: 'declined_at',
  declineReason: 'decline_reason',
  shareReasonWithAttendee: 'share_reason_with_attendee',
  expiredAt: 'expired_at',
  cancelledAt: 'cancelled_at',
  cancelReason: 'cancel_reason',
  rescheduledAt: 'rescheduled_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};
const FIELDS = Object.keys(COLUMN) as (keyof typeof COLUMN)[];

/** The columns of `b` (a booking) as BookingRow's fields. */
const COLUMNS = `b.id, b.organisation_id AS "organisationId", b.livemode, ${FIELDS.map((f) =>
  f === COLUMN[f] ? `b.${f}` : `b.${COLUMN[f]} AS "${f}"`,
).join(', ')}`;

/** A field's value as a statement parameter (the answers are jsonb). */
const param = (field: keyof typeof COLUMN, value: unknown) =>
  field === 'customFields' ? JSON.stringify(value) : value;

export interface BookingFilter {
  bookingTypeId?: string;
  status?: BookingStatus;
  startsFrom?: Date;
  startsTo?: Date;
}

const INSERT_BOOKING = `INSERT INTO visitor.booking (id, organisation_id, livemode, ${FIELDS.map((f) => COLUMN[f]).join(', ')})
  VALUES (${Array.from({ length: FIELDS.length + 3 }, (_, i) => `$${i + 1}`).join(', ')})`;

/**
 * Bookings: tenant-scoped SQL. Attendees are personal data: erased with the visitor they became or share a phone
 * with, or on their own (DELETE /v1/bookings/{id}/attendee).
 */
@Injectable()
@HoldsVisitorData(11)
@HoldsSandboxData(22)
export class BookingsRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's bookings. */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.booking WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  /**
   * Inserts a new booking (its service takes the slot's place in the same transaction: BookingTypesService), as a
   * prepared statement written to the transaction's connection when called (`BookingsService.create`).
   */
  async insert(m: EntityManager, b: BookingRow): Promise<void> {
    assertTenant(b);
    await preparedQuery(m, 'booking_insert', INSERT_BOOKING, [
      b.id,
      b.organisationId,
      b.livemode,
      ...FIELDS.map((f) => param(f, b[f])),
    ]);
  }

  find(tenant: Tenant, id: string, m?: EntityManager, lock = false): Promise<BookingRow | null> {
    assertTenant(tenant);
    return row<BookingRow>(
      m ?? this.ds,
      `SELECT ${COLUMNS} FROM visitor.booking b
        WHERE b.id = $1 AND b.organisation_id = $2 AND b.livemode = $3${lock ? ' FOR UPDATE' : ''}`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  /** Sets the fields of `changes` that are not undefined (at least one) on the tenant's booking. */
  async update(m: EntityManager, tenant: Tenant, id: string, changes: Partial<BookingRow>): Promise<void> {
    assertTenant(tenant);
    const values: unknown[] = [id, tenant.organisationId, tenant.livemode];
    const sets: string[] = [];
    for (const f of FIELDS) {
      if (changes[f] === undefined) continue;
      values.push(param(f, changes[f]));
      sets.push(`${COLUMN[f]} = $${values.length}`);
    }
    if (!sets.length) throw new Error('update: no change to make');
    await m.query(
      `UPDATE visitor.booking SET ${sets.join(', ')} WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      values,
    );
  }

  /** Keyset page in (created_at, id) order, `limit` rows. */
  list(tenant: Tenant, f: BookingFilter, limit: number, after?: CreatedAfter): Promise<BookingRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['b.organisation_id = $1 AND b.livemode = $2'];
    const add = (sql: (n: number) => string, ...v: unknown[]) => {
      values.push(...v);
      where.push(sql(values.length - v.length + 1));
    };
    if (f.bookingTypeId) add((n) => `b.booking_type_id = $${n}`, f.bookingTypeId);
    if (f.status) add((n) => `b.status = $${n}`, f.status);
    if (f.startsFrom) add((n) => `b.starts_at >= $${n}`, f.startsFrom);
    if (f.startsTo) add((n) => `b.starts_at < $${n}`, f.startsTo);
    if (after)
      add((n) => `(b.created_at, b.id) > ($${n}::timestamptz, $${n + 1})`, after.createdAt, after.id);
    values.push(limit);
    return rows<BookingRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.booking b WHERE ${where.join(' AND ')}
        ORDER BY b.created_at, b.id LIMIT $${values.length}`,
      values,
    );
  }

  /**
   * Pending bookings whose confirmation window has closed, locked for the caller's transaction; rows another
   * worker holds are skipped (SKIP LOCKED), so several workers expire disjoint batches.
   */
  lockDueExpiries(m: EntityManager, now: Date, limit: number): Promise<BookingRow[]> {
    return rows<BookingRow>(
      m,
      `SELECT ${COLUMNS} FROM visitor.booking b WHERE b.status = 'pending' AND b.confirm_by <= $1
        ORDER BY b.confirm_by LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
  }

  /**
   * Erasure: the person's bookings (whose visit they became: the visit ids visits added to the erasure, which runs
   * them first; made with their phone; or the booking an attendee erasure starts from) lose the attendee's
   * details, answers and the decline and cancel reasons; their ids join the erasure so events, messages, stored
   * responses and webhook answers about them are erased too.
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, erasure: Erasure): Promise<void> {
    assertTenant(tenant);
    const { rows: erased } = await change<{ id: string }>(
      uow.manager,
      `UPDATE visitor.booking b
          SET attendee_name = NULL, attendee_phone = NULL, attendee_email = NULL, attendee_company = NULL,
              custom_fields = '{}', decline_reason = NULL, cancel_reason = NULL
        WHERE b.organisation_id = $1 AND b.livemode = $2
          AND (b.visit_id = ANY($4::text[]) OR b.attendee_phone = $3 OR b.id = ANY($4::text[]))
        RETURNING b.id`,
      [tenant.organisationId, tenant.livemode, erasure.phone, erasure.relatedIds],
    );
    erasure.relatedIds.push(...erased.map((r) => r.id).filter((id) => !erasure.relatedIds.includes(id)));
  }
}
