import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant, saveInTenant } from '../platform/tenant';
import { BookingTypeRow } from './booking-type.entity';

/**
 * SQL taking one place of a slot (the parameters are placeholders such as `$1`): the slot's counter row is inserted,
 * or locked by the upsert and counted up only while `taken < capacity` on the row as it stands once locked, so
 * concurrent takers queue on the row and at most `capacity` succeed. It returns a row when the place was taken,
 * none when the slot is full. Bookings use it as a CTE of their own INSERT.
 */
export function takePlaceSql(p: {
  type: string;
  start: string;
  org: string;
  live: string;
  capacity: string;
}): string {
  return `INSERT INTO visitor.booking_slot AS s (booking_type_id, starts_at, organisation_id, livemode, capacity, taken)
       VALUES (${p.type}, ${p.start}, ${p.org}, ${p.live}, ${p.capacity}, 1)
       ON CONFLICT (booking_type_id, starts_at) DO UPDATE
          SET taken = s.taken + 1, capacity = EXCLUDED.capacity
        WHERE s.taken < EXCLUDED.capacity AND s.organisation_id = ${p.org} AND s.livemode = ${p.live}
       RETURNING taken`;
}

/** Booking types and their slot counters: tenant-scoped SQL. */
@Injectable()
export class BookingTypesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  async find(tenant: Tenant, id: string, m?: EntityManager): Promise<BookingTypeRow | null> {
    assertTenant(tenant);
    return this.m(m)
      .getRepository(BookingTypeRow)
      .findOne({ where: { id, organisationId: tenant.organisationId, livemode: tenant.livemode } });
  }

  /** The type and its site's time zone in one round trip (the hot path of POST /v1/bookings). */
  async findWithZone(tenant: Tenant, id: string): Promise<{ row: BookingTypeRow; zone: string } | null> {
    assertTenant(tenant);
    const rows = await preparedQuery<Record<string, unknown>>(
      this.ds,
      'booking_type_with_zone',
      `SELECT t.*, t.closed_dates::text[] AS closed_dates, coalesce(s.time_zone, 'UTC') AS zone
         FROM visitor.booking_type t LEFT JOIN visitor.site s ON s.id = t.site_id
        WHERE t.id = $1 AND t.organisation_id = $2 AND t.livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
    const r = rows[0];
    if (!r) return null;
    const row: BookingTypeRow = {
      id: r.id as string,
      organisationId: r.organisation_id as string,
      livemode: r.livemode as boolean,
      name: r.name as string,
      visitType: r.visit_type as string,
      siteId: r.site_id as string,
      hostIds: r.host_ids as string[],
      durationMinutes: r.duration_minutes as number,
      bufferMinutes: r.buffer_minutes as number,
      capacity: r.capacity as number,
      requiresConfirmation: r.requires_confirmation as boolean,
      confirmationWindowHours: r.confirmation_window_hours as number,
      isPublic: r.is_public as boolean,
      weeklyHours: r.weekly_hours as BookingTypeRow['weeklyHours'],
      closedDates: r.closed_dates as string[],
      horizonDays: r.horizon_days as number,
      minNoticeMinutes: r.min_notice_minutes as number,
      active: r.active as boolean,
      createdAt: r.created_at as Date,
      updatedAt: r.updated_at as Date,
    };
    return { row, zone: r.zone as string };
  }

  /** Keyset page in (created_at, id) order, `limit` rows; only public, active types when `publicOnly`. */
  async list(
    tenant: Tenant,
    limit: number,
    after?: CreatedAfter,
    publicOnly = false,
  ): Promise<BookingTypeRow[]> {
    assertTenant(tenant);
    const qb = this.ds
      .getRepository(BookingTypeRow)
      .createQueryBuilder('t')
      .where('t.organisationId = :org AND t.livemode = :live', {
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    if (publicOnly) qb.andWhere('t.isPublic AND t.active');
    if (after)
      qb.andWhere('(t.createdAt, t.id) > (:at::timestamptz, :id)', { at: after.createdAt, id: after.id });
    return qb.orderBy('t.createdAt', 'ASC').addOrderBy('t.id', 'ASC').limit(limit).getMany();
  }

  /** Inserts the row, or updates it in its tenant (another tenant's row with its id is never touched). */
  save(m: EntityManager, row: BookingTypeRow): Promise<void> {
    return saveInTenant(m.getRepository(BookingTypeRow), row);
  }

  /** Taken places of the type's slots starting in [from, to), by start (ms since the epoch). */
  async taken(tenant: Tenant, typeId: string, from: Date, to: Date): Promise<Map<number, number>> {
    assertTenant(tenant);
    const rows: { starts_at: Date; taken: number }[] = await this.ds.query(
      `SELECT starts_at, taken FROM visitor.booking_slot
        WHERE booking_type_id = $1 AND organisation_id = $2 AND livemode = $3
          AND starts_at >= $4 AND starts_at < $5 AND taken > 0`,
      [typeId, tenant.organisationId, tenant.livemode, from, to],
    );
    return new Map(rows.map((r) => [r.starts_at.getTime(), r.taken]));
  }

  /** Takes one place of a slot in the caller's transaction (`takePlaceSql`); false when the slot is full. */
  async take(
    m: EntityManager,
    tenant: Tenant,
    typeId: string,
    startsAt: Date,
    capacity: number,
  ): Promise<boolean> {
    assertTenant(tenant);
    const rows = await preparedQuery(
      m,
      'booking_slot_take',
      takePlaceSql({ type: '$1', start: '$2', org: '$3', live: '$4', capacity: '$5' }),
      [typeId, startsAt, tenant.organisationId, tenant.livemode, capacity],
    );
    return rows.length === 1;
  }

  /** Gives a place of a slot back (decline, expiry, cancel, the old slot of a reschedule). */
  async release(m: EntityManager, tenant: Tenant, typeId: string, startsAt: Date): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `UPDATE visitor.booking_slot SET taken = taken - 1
        WHERE booking_type_id = $1 AND starts_at = $2 AND organisation_id = $3 AND livemode = $4 AND taken > 0`,
      [typeId, startsAt, tenant.organisationId, tenant.livemode],
    );
  }
}
