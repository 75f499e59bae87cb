import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { change, row, rows } from '../../database/sql';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import type { WeeklyHours } from './availability';
import type { UnitOfWork } from '../../database/unit-of-work';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';
import { ReferenceCache } from '../platform/reference-cache';

/** A booking type: what a booking page offers (slots of one site, hosts, capacity, confirmation rules). */
export interface BookingTypeRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  name: string;
  visitType: string;
  siteId: string;
  hostIds: string[];
  durationMinutes: number;
  bufferMinutes: number;
  capacity: number;
  requiresConfirmation: boolean;
  confirmationWindowHours: number;
  isPublic: boolean;
  weeklyHours: WeeklyHours;
  /** Calendar dates `yyyy-MM-dd` (read as text: the driver would read a `date` as local midnight). */
  closedDates: string[];
  horizonDays: number;
  minNoticeMinutes: number;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of `t` (a booking type) as BookingTypeRow's fields. */
const COLUMNS = `t.id, t.organisation_id AS "organisationId", t.livemode, t.name, t.visit_type AS "visitType",
  t.site_id AS "siteId", t.host_ids AS "hostIds", t.duration_minutes AS "durationMinutes",
  t.buffer_minutes AS "bufferMinutes", t.capacity, t.requires_confirmation AS "requiresConfirmation",
  t.confirmation_window_hours AS "confirmationWindowHours", t.is_public AS "isPublic", t.weekly_hours AS "weeklyHours",
  t.closed_dates::text[] AS "closedDates", t.horizon_days AS "horizonDays", t.min_notice_minutes AS "minNoticeMinutes",
  t.active, t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

/** The columns a save writes besides the id and the tenant (field, column). */
const SAVED: [keyof BookingTypeRow, string][] = [
  ['name', 'name'],
  ['visitType', 'visit_type'],
  ['siteId', 'site_id'],
  ['hostIds', 'host_ids'],
  ['durationMinutes', 'duration_minutes'],
  ['bufferMinutes', 'buffer_minutes'],
  ['capacity', 'capacity'],
  ['requiresConfirmation', 'requires_confirmation'],
  ['confirmationWindowHours', 'confirmation_window_hours'],
  ['isPublic', 'is_public'],
  ['weeklyHours', 'weekly_hours'],
  ['closedDates', 'closed_dates'],
  ['horizonDays', 'horizon_days'],
  ['minNoticeMinutes', 'min_notice_minutes'],
  ['active', 'active'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
];

/** Booking types and their slot counters: tenant-scoped SQL. */
@Injectable()
@HoldsSandboxData(24)
export class BookingTypesRepository implements SandboxDataHolder {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    private readonly references: ReferenceCache,
  ) {}

  /** Sandbox reset: the test-mode tenant's slot counters (the types stay; no booking holds a slot any more). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.booking_slot WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  async find(tenant: Tenant, id: string, m?: EntityManager): Promise<BookingTypeRow | null> {
    assertTenant(tenant);
    return row<BookingTypeRow>(
      this.m(m),
      `SELECT ${COLUMNS} FROM visitor.booking_type t WHERE t.id = $1 AND t.organisation_id = $2 AND t.livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  /**
   * The type and its site's time zone in one round trip (the hot path of POST /v1/bookings): the zone from the
   * view organisations publish for it. With the organisation's reference `version`, as kept for it when it was read
   * already (`ReferenceCache`; the result is shared and not to be changed).
   */
  findWithZone(
    tenant: Tenant,
    id: string,
    version?: string,
  ): Promise<{ row: BookingTypeRow; zone: string } | null> {
    assertTenant(tenant);
    return this.references.read(tenant, version, `booking_type ${id}`, async () => {
      const [found] = await preparedQuery<BookingTypeRow & { zone: string }>(
        this.ds,
        'booking_type_with_zone',
        `SELECT ${COLUMNS}, coalesce(s.time_zone, 'UTC') AS zone
           FROM visitor.booking_type t LEFT JOIN published.organisations_sites s ON s.id = t.site_id
          WHERE t.id = $1 AND t.organisation_id = $2 AND t.livemode = $3`,
        [id, tenant.organisationId, tenant.livemode],
      );
      if (!found) return null;
      const { zone, ...type } = found;
      return { row: type, zone };
    });
  }

  /** Keyset page in (created_at, id) order, `limit` rows; only public, active types when `publicOnly`. */
  async list(
    tenant: Tenant,
    limit: number,
    after?: CreatedAfter,
    publicOnly = false,
  ): Promise<BookingTypeRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    if (after) values.push(after.createdAt, after.id);
    values.push(limit);
    return rows<BookingTypeRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.booking_type t
        WHERE t.organisation_id = $1 AND t.livemode = $2${publicOnly ? ' AND t.is_public AND t.active' : ''}
              ${after ? 'AND (t.created_at, t.id) > ($3::timestamptz, $4)' : ''}
        ORDER BY t.created_at, t.id LIMIT $${values.length}`,
      values,
    );
  }

  /**
   * Inserts the row, or updates it in its tenant: the update is filtered on the row's own organisation and mode,
   * so another tenant's row with its id is never touched (the insert then fails on the primary key).
   */
  async save(m: EntityManager, t: BookingTypeRow): Promise<void> {
    assertTenant(t);
    const values = SAVED.map(([field]) => (field === 'weeklyHours' ? JSON.stringify(t[field]) : t[field]));
    const { affected } = await change(
      m,
      `UPDATE visitor.booking_type SET ${SAVED.map(([, column], i) => `${column} = $${i + 4}`).join(', ')}
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [t.id, t.organisationId, t.livemode, ...values],
    );
    if (affected) return;
    await m.query(
      `INSERT INTO visitor.booking_type (id, organisation_id, livemode, ${SAVED.map(([, c]) => c).join(', ')})
       VALUES (${Array.from({ length: SAVED.length + 3 }, (_, i) => `$${i + 1}`).join(', ')})`,
      [t.id, t.organisationId, t.livemode, ...values],
    );
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

  /**
   * Takes one place of a slot in the caller's transaction: the slot's counter row is inserted, or locked by the
   * upsert and counted up only while `taken < capacity` on the row as it stands once locked, so concurrent takers
   * queue on the row and at most `capacity` succeed. False when the slot is full.
   */
  async take(
    m: EntityManager,
    tenant: Tenant,
    typeId: string,
    startsAt: Date,
    capacity: number,
  ): Promise<boolean> {
    assertTenant(tenant);
    const taken = await preparedQuery(
      m,
      'booking_slot_take',
      `INSERT INTO visitor.booking_slot AS s (booking_type_id, starts_at, organisation_id, livemode, capacity, taken)
       VALUES ($1, $2, $3, $4, $5, 1)
       ON CONFLICT (booking_type_id, starts_at) DO UPDATE
          SET taken = s.taken + 1, capacity = EXCLUDED.capacity
        WHERE s.taken < EXCLUDED.capacity AND s.organisation_id = $3 AND s.livemode = $4
       RETURNING taken`,
      [typeId, startsAt, tenant.organisationId, tenant.livemode, capacity],
    );
    return taken.length === 1;
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
