import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { Clock } from '../../common/clock';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PeopleService } from '../people/people.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import {
  AttendanceRepository,
  ClockEventRow,
  EVIDENCE_KINDS,
  EvidenceKind,
  HolidayRow,
  LeaveRow,
  ShiftRow,
} from './attendance.repository';
import type {
  ClockEventsQuery,
  EvidenceConsentBody,
  HolidayBody,
  LeaveBody,
  RecordClockEventBody,
  SaveShiftBody,
  SummaryQuery,
} from './dto/attendance.request';
import {
  AttendanceSummaryResponse,
  ClockEventResponse,
  EvidenceConsentResponse,
  ShiftResponse,
  toClockEventResponse,
  toShiftResponse,
} from './dto/attendance.response';
import { queryRange } from '../../common/validation/timestamp';

/** A leave record as the console lists it (local dates, inclusive). */
export interface LeaveView {
  id: string;
  person_id: string;
  leave_type: string;
  first_day: string;
  last_day: string;
  created_at: string;
}

/** A public holiday as the console lists it (`site_id` null: every site). */
export interface HolidayView {
  id: string;
  site_id: string | null;
  day: string;
  name: string;
  created_at: string;
}

/** The longest summary or export range: 31 local dates. */
export const MAX_SUMMARY_DAYS = 31;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
/** How old a clock event may be when recorded: a terminal that was offline up to a month still uploads its punches. */
export const CLOCK_EVENT_MAX_AGE_MS = 31 * 86_400_000;
/** How far ahead of the server's clock a clock event may be: a terminal clock's skew, not a future punch. */
export const CLOCK_EVENT_MAX_AHEAD_MS = 5 * 60_000;

const dateOk = (v: string) => DateTime.fromISO(v, { zone: 'UTC' }).isValid;

/** A range of local dates `from`..`to` (inclusive) of at most `max` dates, or validation_failed naming the parameter. */
export function checkDateRange(from: string, to: string, max: number, at = 'query'): void {
  const errors: FieldError[] = [];
  if (!dateOk(from)) errors.push({ location: `${at}.from`, message: 'is not a calendar date' });
  if (!dateOk(to)) errors.push({ location: `${at}.to`, message: 'is not a calendar date' });
  else if (!errors.length && to < from)
    errors.push({ location: `${at}.to`, message: 'must not be before from' });
  else if (
    !errors.length &&
    DateTime.fromISO(to, { zone: 'UTC' }).diff(DateTime.fromISO(from, { zone: 'UTC' }), 'days').days >= max
  )
    errors.push({
      location: `${at}.to`,
      message: `must be at most ${max} days from from (${max} dates in all)`,
    });
  if (errors.length) throw ApiError.validation(errors);
}

/**
 * Attendance: shifts (managed by admins), clock events from the organisation's terminals with late minutes against
 * the person's shift, evidence consent, leave and public holidays, the daily summary. Events in the same
 * transaction as the change.
 */
@Injectable()
export class AttendanceService {
  constructor(
    private readonly repo: AttendanceRepository,
    private readonly people: PeopleService,
    private readonly orgs: OrganisationsService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  // --- shifts ---

  shifts(tenant: Tenant, q: ListQuery): Promise<Page<ShiftResponse>> {
    return this.cursors.codec.createdPage(
      'shifts',
      tenant,
      q,
      (limit, after) => this.repo.listShifts(tenant, limit + 1, after),
      toShiftResponse,
    );
  }

  async shift(tenant: Tenant, id: string): Promise<ShiftResponse> {
    const s = await this.repo.findShift(tenant, id);
    if (!s) throw ApiError.notFound(`Shift ${id}`);
    return toShiftResponse(s);
  }

  /** Admins (console, CLI): creates (`id` null) or replaces a shift, and puts `person_ids` on it. */
  async saveShift(tenant: Tenant, id: string | null, input: SaveShiftBody): Promise<ShiftResponse> {
    const errors: FieldError[] = [];
    const people = input.person_ids ?? [];
    const [site, found] = await Promise.all([
      this.orgs.findSite(tenant, input.site_id),
      this.people.existingIds(tenant, people),
    ]);
    if (!site)
      errors.push({
        location: 'body.site_id',
        message: `no site ${input.site_id} in this organisation and mode`,
      });
    if (minutesOf(input.end_time) <= minutesOf(input.start_time))
      errors.push({
        location: 'body.end_time',
        message: 'must be after start_time (shifts end on the day they start)',
      });
    people.forEach((p, i) => {
      if (!found.has(p)) errors.push({ location: `body.person_ids.${i}`, message: `no person ${p}` });
    });
    if (errors.length) throw ApiError.validation(errors);
    const saved = await this.tx.run(async (uow) => {
      const current = id ? await this.repo.findShift(tenant, id, uow.manager) : null;
      if (id && !current) throw ApiError.notFound(`Shift ${id}`);
      const now = this.clock.now();
      const row: ShiftRow = {
        id: current?.id ?? newId('shift'),
        organisationId: tenant.organisationId,
        livemode: tenant.livemode,
        name: input.name.trim(),
        siteId: input.site_id,
        startTime: input.start_time,
        endTime: input.end_time,
        graceMinutes: input.grace_minutes ?? 0,
        daysOfWeek: [...new Set(input.days_of_week)].sort(),
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
      };
      await this.repo.saveShift(uow.manager, row);
      if (people.length) await this.repo.assign(uow.manager, tenant, row.id, people);
      return row;
    });
    return toShiftResponse(saved);
  }

  async addLeave(tenant: Tenant, input: LeaveBody): Promise<{ id: string }> {
    const errors: FieldError[] = [];
    if (!(await this.people.existingIds(tenant, [input.person_id])).has(input.person_id))
      errors.push({ location: 'body.person_id', message: `no person ${input.person_id}` });
    if (!dateOk(input.first_day))
      errors.push({ location: 'body.first_day', message: 'is not a calendar date' });
    if (!dateOk(input.last_day) || input.last_day < input.first_day)
      errors.push({ location: 'body.last_day', message: 'must be a calendar date not before first_day' });
    if (errors.length) throw ApiError.validation(errors);
    const id = newId('leave');
    await this.tx.run((uow) =>
      this.repo.insertLeave(uow.manager, tenant, {
        id,
        personId: input.person_id,
        leaveType: input.leave_type,
        firstDay: input.first_day,
        lastDay: input.last_day,
        createdAt: this.clock.now(),
      }),
    );
    return { id };
  }

  async addHoliday(tenant: Tenant, input: HolidayBody): Promise<{ id: string }> {
    const errors: FieldError[] = [];
    if (input.site_id && !(await this.orgs.findSite(tenant, input.site_id)))
      errors.push({
        location: 'body.site_id',
        message: `no site ${input.site_id} in this organisation and mode`,
      });
    if (!dateOk(input.day)) errors.push({ location: 'body.day', message: 'is not a calendar date' });
    if (errors.length) throw ApiError.validation(errors);
    const id = newId('holiday');
    await this.tx.run((uow) =>
      this.repo.insertHoliday(uow.manager, tenant, {
        id,
        siteId: input.site_id ?? null,
        day: input.day,
        name: input.name,
        createdAt: this.clock.now(),
      }),
    );
    return { id };
  }

  /** The console's leave list: one page, oldest first, with a signed cursor. */
  leavePage(tenant: Tenant, q: ListQuery): Promise<Page<LeaveView>> {
    return this.cursors.codec.createdPage(
      'attendance_leave',
      tenant,
      q,
      (limit, after) => this.repo.listLeave(tenant, limit + 1, after),
      (r: LeaveRow): LeaveView => ({
        id: r.id,
        person_id: r.personId,
        leave_type: r.leaveType,
        first_day: r.firstDay,
        last_day: r.lastDay,
        created_at: r.createdAt.toISOString(),
      }),
    );
  }

  /** The console's holiday list: one page, oldest first, with a signed cursor. */
  holidayPage(tenant: Tenant, q: ListQuery): Promise<Page<HolidayView>> {
    return this.cursors.codec.createdPage(
      'public_holidays',
      tenant,
      q,
      (limit, after) => this.repo.listHolidays(tenant, limit + 1, after),
      (r: HolidayRow): HolidayView => ({
        id: r.id,
        site_id: r.siteId,
        day: r.day,
        name: r.name,
        created_at: r.createdAt.toISOString(),
      }),
    );
  }

  // --- consent ---

  async consent(tenant: Tenant, personId: string): Promise<EvidenceConsentResponse> {
    if (!(await this.people.find(tenant, personId))) throw ApiError.notFound(`Person ${personId}`);
    return this.consentView(personId, await this.repo.consents(tenant, personId));
  }

  private consentView(
    personId: string,
    c: Map<EvidenceKind, { given: boolean; updatedAt: Date }>,
  ): EvidenceConsentResponse {
    const times = [...c.values()].map((v) => v.updatedAt.getTime());
    return {
      person_id: personId,
      face: c.get('face')?.given ?? false,
      selfie: c.get('selfie')?.given ?? false,
      location: c.get('location')?.given ?? false,
      updated_at: times.length ? new Date(Math.max(...times)).toISOString() : null,
    };
  }

  /** POST /v1/people/{id}/attendance-evidence: records or withdraws one kind of consent. */
  async recordConsent(
    tenant: Tenant,
    personId: string,
    input: EvidenceConsentBody,
  ): Promise<EvidenceConsentResponse> {
    return this.tx.run(async (uow) => {
      if (!(await this.people.find(tenant, personId, uow, true)))
        throw ApiError.notFound(`Person ${personId}`);
      await this.repo.setConsent(
        uow.manager,
        tenant,
        personId,
        input.kind as EvidenceKind,
        input.consent === 'given',
        this.clock.now(),
      );
      return this.consentView(personId, await this.repo.consents(tenant, personId, uow.manager));
    }, IS_RESPONSE);
  }

  // --- clock events ---

  /**
   * POST /v1/attendance/events: checks the person and site, the consent the evidence (or a face clock-in) needs
   * (`consent_required`, nothing stored), then stores the event with its local date and, for the first clock-in of
   * a shift day, its late minutes; events attendance.clocked_in / clocked_out, and attendance.late when late.
   */
  async record(tenant: Tenant, input: RecordClockEventBody): Promise<ClockEventResponse> {
    const [person, site] = await Promise.all([
      this.people.find(tenant, input.person_id),
      this.orgs.findSite(tenant, input.site_id),
    ]);
    const errors: FieldError[] = [];
    if (!person || !person.active)
      errors.push({
        location: 'body.person_id',
        message: person ? `person ${input.person_id} is deactivated` : `no person ${input.person_id}`,
      });
    if (!site)
      errors.push({
        location: 'body.site_id',
        message: `no site ${input.site_id} in this organisation and mode`,
      });
    const late = this.clock.now().getTime() - new Date(input.occurred_at).getTime();
    if (late > CLOCK_EVENT_MAX_AGE_MS)
      errors.push({
        location: 'body.occurred_at',
        message: `is more than ${CLOCK_EVENT_MAX_AGE_MS / 86_400_000} days ago: clock events are recorded within that time`,
      });
    else if (-late > CLOCK_EVENT_MAX_AHEAD_MS)
      errors.push({
        location: 'body.occurred_at',
        message: `is in the future (more than ${CLOCK_EVENT_MAX_AHEAD_MS / 60_000} minutes ahead of the server's clock)`,
      });
    if (errors.length) throw ApiError.validation(errors);
    const needs = new Set<EvidenceKind>();
    if (input.evidence) needs.add(input.evidence.kind as EvidenceKind);
    if (input.method === 'face') needs.add('face');
    return this.tx.run(async (uow) => {
      await this.repo.lockPerson(uow.manager, tenant, input.person_id);
      if (needs.size) {
        const consents = await this.repo.consents(tenant, input.person_id, uow.manager);
        const missing = EVIDENCE_KINDS.filter((k) => needs.has(k) && !consents.get(k)?.given);
        if (missing.length)
          throw new ApiError(
            'consent_required',
            `Person ${input.person_id} has not consented to ${missing.join(' and ')} evidence (or withdrew it); the clock event was not stored.`,
          );
      }
      const shift = await this.repo.shiftOf(tenant, input.person_id, uow.manager);
      const at = new Date(input.occurred_at);
      const zone = shift?.timeZone ?? site!.time_zone;
      const local = DateTime.fromJSDate(at, { zone });
      const localDate = local.toISODate()!;
      let lateMinutes: number | null = null;
      if (
        input.direction === 'in' &&
        shift &&
        shift.daysOfWeek.includes(local.weekday) &&
        !(await this.repo.clockedInOn(uow.manager, tenant, input.person_id, localDate))
      ) {
        const start = DateTime.fromISO(`${localDate}T${shift.startTime.slice(0, 5)}`, { zone });
        const after = Math.floor(local.diff(start, 'minutes').minutes);
        lateMinutes = after > shift.graceMinutes ? after : 0;
      }
      const row: ClockEventRow = {
        id: newId('attendance'),
        organisationId: tenant.organisationId,
        livemode: tenant.livemode,
        personId: input.person_id,
        siteId: input.site_id,
        direction: input.direction,
        occurredAt: at,
        localDate,
        method: input.method,
        deviceId: input.device_id ?? null,
        evidenceKind: input.evidence?.kind ?? null,
        evidenceRef: input.evidence?.reference ?? null,
        offline: input.offline ?? false,
        lateMinutes,
        shiftId: shift && lateMinutes !== null ? shift.id : null,
        createdAt: this.clock.now(),
      };
      await this.repo.insertEvent(uow.manager, row);
      const view = toClockEventResponse(row);
      await this.events.record(
        uow,
        tenant,
        input.direction === 'in' ? 'attendance.clocked_in' : 'attendance.clocked_out',
        view,
      );
      if (lateMinutes) await this.events.record(uow, tenant, 'attendance.late', view);
      return view;
    }, IS_RESPONSE);
  }

  /**
   * Test helper (POST /v1/test-helpers/attendance/late-clock-in): the clock-in a terminal would record for a
   * person who arrives late: on the latest shift day whose start plus grace has passed (today when it has), one
   * minute after the grace, at the shift's site, method `manual`; recorded by `record`, so attendance.clocked_in
   * and attendance.late follow. A person without a shift is `validation_failed`; one already clocked in that day
   * is `invalid_state` (only a day's first clock-in can be late).
   */
  async recordLateClockIn(tenant: Tenant, personId: string): Promise<ClockEventResponse> {
    const [person, shift] = await Promise.all([
      this.people.find(tenant, personId),
      this.repo.shiftOf(tenant, personId),
    ]);
    if (!person || !shift)
      throw ApiError.validation([
        {
          location: 'body.person_id',
          message: person
            ? `person ${personId} has no shift: lateness is measured against one`
            : `no person ${personId}`,
        },
      ]);
    const now = DateTime.fromJSDate(this.clock.now(), { zone: shift.timeZone });
    for (let back = 0; back < 7; back++) {
      const day = now.minus({ days: back });
      const date = day.toISODate()!;
      const at = DateTime.fromISO(`${date}T${shift.startTime.slice(0, 5)}`, { zone: shift.timeZone }).plus({
        minutes: shift.graceMinutes + 1,
      });
      if (!shift.daysOfWeek.includes(day.weekday) || at > now) continue;
      // read outside a transaction: the helper's one transaction is record's (its answer is stored with it)
      if (await this.repo.clockedInOn(null, tenant, personId, date))
        throw new ApiError(
          'invalid_state',
          `Person ${personId} already clocked in on ${date}, their latest shift day: only a first clock-in can be late.`,
        );
      return this.record(tenant, {
        person_id: personId,
        site_id: shift.siteId,
        direction: 'in',
        occurred_at: at.toUTC().toISO()!,
        method: 'manual',
      } as RecordClockEventBody);
    }
    throw ApiError.validation([
      { location: 'body.person_id', message: `person ${personId}'s shift has no day in the last 7 days` },
    ]);
  }

  async event(tenant: Tenant, id: string): Promise<ClockEventResponse> {
    const e = await this.repo.findEvent(tenant, id);
    if (!e) throw ApiError.notFound(`Attendance event ${id}`);
    return toClockEventResponse(e);
  }

  clockEvents(tenant: Tenant, q: ClockEventsQuery): Promise<Page<ClockEventResponse>> {
    const f = { personId: q.person_id, siteId: q.site_id, ...queryRange(q, 'from', 'to') };
    return this.cursors.codec.createdPage(
      'attendance_events',
      tenant,
      q,
      (limit, after) => this.repo.listEvents(tenant, f, limit + 1, after),
      toClockEventResponse,
    );
  }

  /**
   * For other domains (front desk roll calls): the people (person ids) whose last clock event at `siteId` at or
   * before `at` is a clock-in — who is on site right now.
   */
  onSite(tenant: Tenant, siteId: string, at: Date): Promise<string[]> {
    return this.repo.onSite(tenant, siteId, at);
  }

  // --- summary ---

  /** Today's date in the organisation's time zone: the last date a shift day can be `absent`. */
  async today(tenant: Tenant): Promise<string> {
    const org = await this.orgs.findOrganisation(tenant.organisationId);
    return DateTime.fromJSDate(this.clock.now(), { zone: org?.time_zone ?? 'UTC' }).toISODate()!;
  }

  /** GET /v1/attendance/summary: counts per local date, at most 31 dates. */
  async summary(tenant: Tenant, q: SummaryQuery): Promise<AttendanceSummaryResponse> {
    checkDateRange(q.from, q.to, MAX_SUMMARY_DAYS);
    const rows = await this.repo.summary(tenant, q.from, q.to, await this.today(tenant));
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const data = [];
    for (let d = DateTime.fromISO(q.from, { zone: 'UTC' }); d.toISODate()! <= q.to; d = d.plus({ days: 1 })) {
      const r = byDay.get(d.toISODate()!);
      data.push({
        date: d.toISODate()!,
        present: r?.present ?? 0,
        late: r?.late ?? 0,
        on_leave: r?.on_leave ?? 0,
        absent: r?.absent ?? 0,
        public_holiday: r?.public_holiday ?? 0,
        rest_day: r?.rest_day ?? 0,
      });
    }
    return { from: q.from, to: q.to, data };
  }
}
