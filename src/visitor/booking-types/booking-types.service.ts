import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { Clock } from '../../common/clock';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { newId } from '../../common/ids';
import { Transactions, UnitOfWork } from '../../database/unit-of-work';
import { publicForm } from '../forms/custom-fields.validator';
import { FormsService } from '../forms/forms.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PeopleService } from '../people/people.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { typeProblems, VisitTypesService } from '../visit-types/visit-types.service';
import {
  addDays,
  daysBetween,
  isCalendarDate,
  localDate,
  Slot,
  checkedSlotAt,
  slotAt,
  slotsOfDay,
  datesBetween,
  WEEKDAYS,
  WeeklyHours,
} from './availability';
import { BookingTypeRow, BookingTypesRepository } from './booking-types.repository';
import type { AvailabilityQuery, SaveBookingTypeBody } from './dto/booking-type.request';
import {
  AvailabilityResponse,
  BookingTypeResponse,
  toBookingTypeResponse,
} from './dto/booking-type.response';

/** The longest availability range one call returns, in days (inclusive of both ends: 31 dates). */
export const MAX_AVAILABILITY_DAYS = 31;

/** A booking type as bookings use it: its row and its site's time zone. */
export interface UsableType {
  row: BookingTypeRow;
  zone: string;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Booking types: managed by admins (console, CLI) in one mode at a time (sites and hosts are per mode); read by
 * integrations and, when published, by publishable keys; free slots computed in the site's time zone.
 */
@Injectable()
export class BookingTypesService {
  constructor(
    private readonly repo: BookingTypesRepository,
    private readonly orgs: OrganisationsService,
    private readonly people: PeopleService,
    private readonly visitTypes: VisitTypesService,
    private readonly forms: FormsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  private async view(tenant: Tenant, row: BookingTypeRow, zone?: string): Promise<BookingTypeResponse> {
    const [site, form] = await Promise.all([
      zone ? null : this.orgs.findSite(tenant, row.siteId),
      row.isPublic ? this.forms.current(tenant, 'visit') : null,
    ]);
    return toBookingTypeResponse(row, zone ?? site?.time_zone ?? 'UTC', form ? publicForm(form) : null);
  }

  /** GET /v1/booking-types: oldest first; a publishable key sees only published, active types. */
  async page(tenant: Tenant, publishable: boolean, q: ListQuery): Promise<Page<BookingTypeResponse>> {
    let rows: BookingTypeRow[] = [];
    const page = await this.cursors.codec.createdPage(
      'booking_types',
      tenant,
      q,
      async (limit, after) => (rows = await this.repo.list(tenant, limit + 1, after, publishable)),
      (r) => r,
    );
    const sites = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.siteId)))
      sites.set(id, (await this.orgs.findSite(tenant, id))?.time_zone ?? 'UTC');
    const data = await Promise.all(page.data.map((r) => this.view(tenant, r, sites.get(r.siteId))));
    return { ...page, data };
  }

  /** The type as the caller may see it: a publishable key sees only published, active types (else not_found). */
  private async visible(tenant: Tenant, id: string, publishable: boolean): Promise<BookingTypeRow> {
    const row = await this.repo.find(tenant, id);
    if (!row || (publishable && !(row.isPublic && row.active))) throw ApiError.notFound(`Booking type ${id}`);
    return row;
  }

  /** One type of the tenant, whatever its state (GET /v1/booking-types/{id} is closed to publishable keys). */
  async get(tenant: Tenant, id: string): Promise<BookingTypeResponse> {
    return this.view(tenant, await this.visible(tenant, id, false));
  }

  /**
   * The type a new booking names: unknown or turned off → validation_failed at body.booking_type_id (another
   * tenant's id is unknown here); private with a publishable key → forbidden. `referenceVersion`: the caller's
   * (`Caller.referenceVersion`), so the type may be the one read for it already.
   */
  async usable(
    tenant: Tenant,
    id: string,
    publishable: boolean,
    referenceVersion?: string,
  ): Promise<UsableType> {
    const found = await this.repo.findWithZone(tenant, id, referenceVersion);
    if (!found || !found.row.active)
      throw ApiError.validation([
        {
          location: 'body.booking_type_id',
          message: found ? `booking type ${id} is not taking bookings` : `no booking type ${id}`,
        },
      ]);
    if (publishable && !found.row.isPublic)
      throw new ApiError(
        'forbidden',
        `Booking type ${id} is not published: a publishable key cannot book it.`,
      );
    return found;
  }

  /** Takes one place of a slot in the caller's transaction; false when the slot is full. */
  takeSlot(
    uow: UnitOfWork,
    tenant: Tenant,
    typeId: string,
    startsAt: Date,
    capacity: number,
  ): Promise<boolean> {
    return this.repo.take(uow.manager, tenant, typeId, startsAt, capacity);
  }

  /** Gives a place of a slot back in the caller's transaction (decline, expiry, cancel, a reschedule's old slot). */
  releaseSlot(uow: UnitOfWork, tenant: Tenant, typeId: string, startsAt: Date): Promise<void> {
    return this.repo.release(uow.manager, tenant, typeId, startsAt);
  }

  /** The type (any state) and its zone, for changes to existing bookings. */
  async byId(tenant: Tenant, id: string): Promise<UsableType> {
    const found = await this.repo.findWithZone(tenant, id);
    if (!found) throw new Error(`booking type ${id} is gone`);
    return found;
  }

  /**
   * The slot starting at `start` that may be booked now: a slot of the type's week (in the site's time zone), not
   * on a closed date, at least the minimum notice ahead and within the horizon. validation_failed at `location`.
   */
  slotFor(t: UsableType, start: Date, location: string): Slot {
    const now = this.clock.now().getTime();
    const early = start.getTime() < now + t.row.minNoticeMinutes * 60_000;
    const late = start.getTime() > now + t.row.horizonDays * 86_400_000;
    // Only a start that may be booked is looked up in the days slotAt keeps: what a client asks about outside the
    // horizon is checked alone and kept nowhere.
    const slot = early || late ? checkedSlotAt(t.row, t.zone, start) : slotAt(t.row, t.zone, start);
    const refuse = (message: string) => ApiError.validation([{ location, message }]);
    if (!slot) throw refuse(`is not the start of a slot of booking type ${t.row.id}`);
    if (early) throw refuse(`must be at least ${t.row.minNoticeMinutes} minutes from now`);
    if (late) throw refuse(`must be within ${t.row.horizonDays} days from now`);
    return slot;
  }

  /** GET /v1/booking-types/{id}/availability: the free slots of a range of local dates. */
  async availability(
    tenant: Tenant,
    id: string,
    publishable: boolean,
    q: AvailabilityQuery,
  ): Promise<AvailabilityResponse> {
    const row = await this.visible(tenant, id, publishable);
    const zone = (await this.orgs.findSite(tenant, row.siteId))?.time_zone ?? 'UTC';
    const now = this.clock.now();
    const from = q.from ?? localDate(now, zone);
    const to = q.to ?? addDays(from, 6);
    const errors: FieldError[] = [];
    for (const [name, v] of [
      ['from', from],
      ['to', to],
    ])
      if (!isCalendarDate(v)) errors.push({ location: `query.${name}`, message: 'is not a calendar date' });
    if (!errors.length && to < from)
      errors.push({ location: 'query.to', message: 'must not be before from' });
    if (!errors.length && daysBetween(from, to) >= MAX_AVAILABILITY_DAYS)
      errors.push({ location: 'query.to', message: `must be within ${MAX_AVAILABILITY_DAYS} days of from` });
    if (errors.length) throw ApiError.validation(errors);
    const earliest = now.getTime() + row.minNoticeMinutes * 60_000;
    const latest = now.getTime() + row.horizonDays * 86_400_000;
    const slots = datesBetween(from, to)
      .flatMap((d) => slotsOfDay(row, zone, d))
      .filter((s) => s.start.getTime() >= earliest && s.start.getTime() <= latest);
    const taken = slots.length
      ? await this.repo.taken(
          tenant,
          row.id,
          slots[0].start,
          new Date(slots[slots.length - 1].start.getTime() + 1),
        )
      : new Map<number, number>();
    const data = slots
      .map((s) => ({ s, remaining: row.capacity - (taken.get(s.start.getTime()) ?? 0) }))
      .filter((x) => x.remaining > 0)
      .map(({ s, remaining }) => ({
        start: s.start.toISOString(),
        end: s.end.toISOString(),
        local_start: s.local,
        remaining,
      }));
    return { booking_type_id: row.id, time_zone: zone, from, to, data };
  }

  /** Admins (console, CLI): creates (`id` null) or replaces a booking type of one mode. */
  async save(tenant: Tenant, id: string | null, input: SaveBookingTypeBody): Promise<BookingTypeResponse> {
    await this.check(tenant, input);
    const saved = await this.tx.run(async (uow) => {
      const current = id ? await this.repo.find(tenant, id, uow.manager) : null;
      if (id && !current) throw ApiError.notFound(`Booking type ${id}`);
      const now = this.clock.now();
      const weekly: WeeklyHours = {};
      for (const d of WEEKDAYS) {
        const w = input.weekly_hours[d];
        if (w?.length) weekly[d] = w.map((x) => ({ start: x.start, end: x.end }));
      }
      const row: BookingTypeRow = {
        id: current?.id ?? newId('btype'),
        organisationId: tenant.organisationId,
        livemode: tenant.livemode,
        name: input.name.trim(),
        visitType: input.visit_type,
        siteId: input.site_id,
        hostIds: [...new Set(input.host_ids)],
        durationMinutes: input.duration_minutes,
        bufferMinutes: input.buffer_minutes ?? 0,
        capacity: input.capacity ?? 1,
        requiresConfirmation: input.requires_confirmation ?? false,
        confirmationWindowHours: input.confirmation_window_hours ?? 24,
        isPublic: input.public ?? false,
        weeklyHours: weekly,
        closedDates: [...new Set(input.closed_dates ?? [])].sort(),
        horizonDays: input.horizon_days ?? 60,
        minNoticeMinutes: input.min_notice_minutes ?? 0,
        active: input.active ?? true,
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
      };
      await this.repo.save(uow.manager, row);
      return row;
    });
    return this.view(tenant, saved);
  }

  /**
   * Admins (console): publishes a type (open to publishable keys, its intake questions become its `public_form`) or
   * takes it back; nothing else of the type changes.
   */
  async setPublic(tenant: Tenant, id: string, isPublic: boolean): Promise<BookingTypeResponse> {
    const saved = await this.tx.run(async (uow) => {
      const current = await this.repo.find(tenant, id, uow.manager);
      if (!current) throw ApiError.notFound(`Booking type ${id}`);
      const row: BookingTypeRow = { ...current, isPublic, updatedAt: this.clock.now() };
      await this.repo.save(uow.manager, row);
      return row;
    });
    return this.view(tenant, saved);
  }

  /** Every problem of a booking type definition at once: references, windows, dates. */
  private async check(tenant: Tenant, input: SaveBookingTypeBody): Promise<void> {
    const errors: FieldError[] = [];
    const [site, hosts, vtype] = await Promise.all([
      this.orgs.findSite(tenant, input.site_id),
      Promise.all(input.host_ids.map((h) => this.people.find(tenant, h))),
      this.visitTypes.find(tenant, input.visit_type),
    ]);
    if (!site)
      errors.push({
        location: 'body.site_id',
        message: `no site ${input.site_id} in this organisation and mode`,
      });
    hosts.forEach((h, i) => {
      if (!h || !h.active || !h.canHost)
        errors.push({
          location: `body.host_ids.${i}`,
          message: `person ${input.host_ids[i]} is not an active person who can host`,
        });
    });
    errors.push(
      ...typeProblems(input.visit_type, vtype, false).map((e) => ({ ...e, location: 'body.visit_type' })),
    );
    for (const d of WEEKDAYS)
      (input.weekly_hours[d] ?? []).forEach((w, i) => {
        if (minutesOf(w.end) <= minutesOf(w.start))
          errors.push({ location: `body.weekly_hours.${d}.${i}.end`, message: 'must be after start' });
      });
    (input.closed_dates ?? []).forEach((d, i) => {
      if (!DateTime.fromISO(d, { zone: 'UTC' }).isValid)
        errors.push({ location: `body.closed_dates.${i}`, message: 'is not a calendar date' });
    });
    if (errors.length) throw ApiError.validation(errors);
  }
}
