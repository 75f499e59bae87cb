import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { change, row, rows } from '../../database/sql';
import type { CreatedAfter } from '../platform/pagination';
import { assertTenant, Tenant } from '../platform/tenant';
import type { UnitOfWork } from '../../database/unit-of-work';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

/** A shift pattern (`visitor.shift`): local start and end times at a site, grace minutes, ISO days (1 = Monday). */
export interface ShiftRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  name: string;
  siteId: string;
  /** `HH:MM:SS` as PostgreSQL prints a `time` (`HH:MM` as written, before it is read back). */
  startTime: string;
  endTime: string;
  graceMinutes: number;
  daysOfWeek: number[];
  createdAt: Date;
  updatedAt: Date;
}

/** One clock-in or clock-out from a terminal (`visitor.attendance_event`). */
export interface ClockEventRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  personId: string;
  siteId: string;
  direction: 'in' | 'out';
  occurredAt: Date;
  /** `YYYY-MM-DD` on the site's clock. */
  localDate: string;
  method: string;
  deviceId: string | null;
  evidenceKind: string | null;
  evidenceRef: string | null;
  offline: boolean;
  lateMinutes: number | null;
  shiftId: string | null;
  createdAt: Date;
}

const SHIFT_COLUMNS = `id, organisation_id AS "organisationId", livemode, name, site_id AS "siteId",
  start_time AS "startTime", end_time AS "endTime", grace_minutes AS "graceMinutes", days_of_week AS "daysOfWeek",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

// local_date as text: the pg driver would read a `date` as a JS Date at local midnight
const EVENT_COLUMNS = `id, organisation_id AS "organisationId", livemode, person_id AS "personId",
  site_id AS "siteId", direction, occurred_at AS "occurredAt", local_date::text AS "localDate", method,
  device_id AS "deviceId", evidence_kind AS "evidenceKind", evidence_ref AS "evidenceRef", offline,
  late_minutes AS "lateMinutes", shift_id AS "shiftId", created_at AS "createdAt"`;

export type EvidenceKind = 'face' | 'selfie' | 'location';
export const EVIDENCE_KINDS: readonly EvidenceKind[] = ['face', 'selfie', 'location'];
export const DAY_STATUSES = ['present', 'late', 'absent', 'on_leave', 'public_holiday', 'rest_day'] as const;
export type DayStatus = (typeof DAY_STATUSES)[number];

/** One person's day as the timesheet shows it (local dates and times in the site's time zone). */
export interface DayCell {
  person_id: string;
  day: string;
  status: DayStatus | 'upcoming';
  shift_name: string;
  site_name: string;
  time_zone: string;
  first_in: Date | null;
  last_out: Date | null;
  worked_minutes: number;
  late_minutes: number;
  early_leave_minutes: number;
  overtime_minutes: number;
  leave_type: string | null;
  offline: boolean;
  manual_edit: boolean;
  missing_clock_out: boolean;
}

/** The columns of a day the export writes (times, minutes, leave type, flags). */
const DETAIL_COLUMNS = `, st.shift_name, st.site_name, st.time_zone,
         x.first_in, x.last_out, floor(coalesce(x.worked_s, 0) / 60)::int AS worked_minutes,
         coalesce(x.late_minutes, 0)::int AS late_minutes,
         CASE WHEN x.last_out IS NOT NULL AND st_day.shift_day AND x.last_out < ((d.day + st.end_time) AT TIME ZONE st.time_zone)
              THEN floor(extract(epoch FROM ((d.day + st.end_time) AT TIME ZONE st.time_zone) - x.last_out) / 60)::int ELSE 0 END AS early_leave_minutes,
         CASE WHEN x.last_out IS NOT NULL AND st_day.shift_day AND x.last_out > ((d.day + st.end_time) AT TIME ZONE st.time_zone)
              THEN floor(extract(epoch FROM x.last_out - ((d.day + st.end_time) AT TIME ZONE st.time_zone)) / 60)::int ELSE 0 END AS overtime_minutes,
         l.leave_type, coalesce(x.offline, false) AS offline, coalesce(x.manual_edit, false) AS manual_edit,
         coalesce(x.missing_clock_out, false) AS missing_clock_out`;

/**
 * Every person with a shift × every local date in [$3, $4]: the day's status and times. The one definition of a
 * timesheet day, used by the summary (counted per day) and the export (one row each). Statuses, first match wins:
 * clocked in (late when the first clock-in was late beyond grace, else present); public holiday (of every site or
 * the shift's); not a day of the shift (rest_day); leave; a day after $5 (today: upcoming, counted nowhere); absent.
 * Early leave and overtime are measured against the shift's end on shift days only (not holidays or rest days).
 * Shift ends are placed on the date in the site's zone by PostgreSQL (`AT TIME ZONE`), so DST is its job.
 * $6: only these people (null: everyone). `detail`: with the times, minutes and flags the export writes (the
 * summary counts statuses only, and skips the window over the events those need).
 */
function dayCells(detail: boolean): string {
  const days = detail
    ? `), ev AS (
    SELECT e.person_id, e.local_date, e.direction, e.occurred_at, e.offline, e.method, e.late_minutes,
           lead(e.direction) OVER w AS next_dir, lead(e.occurred_at) OVER w AS next_at,
           row_number() OVER (PARTITION BY e.person_id, e.local_date ORDER BY e.occurred_at DESC, e.id DESC) AS from_end
      FROM visitor.attendance_event e
     WHERE e.organisation_id = $1 AND e.livemode = $2 AND e.local_date BETWEEN $3::date AND $4::date
       AND ($6::text[] IS NULL OR e.person_id = ANY($6))
    WINDOW w AS (PARTITION BY e.person_id, e.local_date ORDER BY e.occurred_at, e.id)
  ), days AS (
    SELECT person_id, local_date,
           min(occurred_at) FILTER (WHERE direction = 'in') AS first_in,
           max(occurred_at) FILTER (WHERE direction = 'out') AS last_out,
           coalesce(sum(extract(epoch FROM next_at - occurred_at)) FILTER (WHERE direction = 'in' AND next_dir = 'out'), 0) AS worked_s,
           coalesce(max(late_minutes), 0) AS late_minutes,
           bool_or(offline) AS offline, bool_or(method = 'manual') AS manual_edit,
           bool_or(from_end = 1 AND direction = 'in') AS missing_clock_out
      FROM ev GROUP BY person_id, local_date`
    : `), days AS (
    SELECT person_id, local_date, min(occurred_at) FILTER (WHERE direction = 'in') AS first_in,
           coalesce(max(late_minutes), 0) AS late_minutes
      FROM visitor.attendance_event
     WHERE organisation_id = $1 AND livemode = $2 AND local_date BETWEEN $3::date AND $4::date
       AND ($6::text[] IS NULL OR person_id = ANY($6))
     GROUP BY person_id, local_date`;
  return `
  WITH staff AS (
    SELECT a.person_id, s.id AS shift_id, s.name AS shift_name, s.end_time, s.days_of_week, s.site_id,
           st.name AS site_name, st.time_zone
      FROM visitor.shift_assignment a
      JOIN visitor.shift s ON s.id = a.shift_id AND s.organisation_id = a.organisation_id AND s.livemode = a.livemode
      JOIN published.organisations_sites st ON st.id = s.site_id
      JOIN published.people_staff p ON p.id = a.person_id AND p.organisation_id = a.organisation_id AND p.livemode = a.livemode
     WHERE a.organisation_id = $1 AND a.livemode = $2 AND p.active AND ($6::text[] IS NULL OR a.person_id = ANY($6))
  ), hol AS (
    SELECT day, bool_or(site_id IS NULL) AS all_sites, array_agg(site_id) FILTER (WHERE site_id IS NOT NULL) AS sites
      FROM visitor.public_holiday
     WHERE organisation_id = $1 AND livemode = $2 AND day BETWEEN $3::date AND $4::date
     GROUP BY day
  ), lv AS (
    SELECT DISTINCT ON (l.person_id, g.day) l.person_id, g.day, l.leave_type
      FROM visitor.attendance_leave l
     CROSS JOIN LATERAL (SELECT x::date AS day FROM generate_series(greatest(l.first_day, $3::date),
                                                                    least(l.last_day, $4::date), interval '1 day') x) g
     WHERE l.organisation_id = $1 AND l.livemode = $2 AND l.last_day >= $3::date AND l.first_day <= $4::date
       AND ($6::text[] IS NULL OR l.person_id = ANY($6))
     ORDER BY l.person_id, g.day, l.created_at
  ${days}
  )
  SELECT st.person_id, d.day::text AS day,
         CASE WHEN x.first_in IS NOT NULL THEN CASE WHEN x.late_minutes > 0 THEN 'late' ELSE 'present' END
              WHEN st_day.holiday THEN 'public_holiday'
              WHEN NOT st_day.shift_day THEN 'rest_day'
              WHEN l.leave_type IS NOT NULL THEN 'on_leave'
              WHEN d.day > $5::date THEN 'upcoming'
              ELSE 'absent' END AS status
         ${detail ? DETAIL_COLUMNS : ''}
    FROM (SELECT g::date AS day FROM generate_series($3::date, $4::date, interval '1 day') g) d
   CROSS JOIN staff st
    LEFT JOIN days x ON x.person_id = st.person_id AND x.local_date = d.day
    LEFT JOIN hol h ON h.day = d.day
    LEFT JOIN lv l ON l.person_id = st.person_id AND l.day = d.day
   CROSS JOIN LATERAL (SELECT coalesce(h.all_sites OR st.site_id = ANY(h.sites), false) AS holiday) hd
   CROSS JOIN LATERAL (SELECT hd.holiday,
                              extract(isodow FROM d.day)::int = ANY(st.days_of_week) AND NOT hd.holiday AS shift_day) st_day`;
}

const SUMMARY = `
  SELECT day,
         count(*) FILTER (WHERE status = 'present')::int AS present,
         count(*) FILTER (WHERE status = 'late')::int AS late,
         count(*) FILTER (WHERE status = 'on_leave')::int AS on_leave,
         count(*) FILTER (WHERE status = 'absent')::int AS absent,
         count(*) FILTER (WHERE status = 'public_holiday')::int AS public_holiday,
         count(*) FILTER (WHERE status = 'rest_day')::int AS rest_day
    FROM (${dayCells(false)}) c GROUP BY day ORDER BY day`;

export interface DaySummaryRow {
  day: string;
  present: number;
  late: number;
  on_leave: number;
  absent: number;
  public_holiday: number;
  rest_day: number;
}

/** A leave record (`visitor.attendance_leave`): local dates, inclusive. */
export interface LeaveRow {
  id: string;
  personId: string;
  leaveType: string;
  firstDay: string;
  lastDay: string;
  createdAt: Date;
}

/** A public holiday (`visitor.public_holiday`) of one site, or of every site (`siteId` null). */
export interface HolidayRow {
  id: string;
  siteId: string | null;
  day: string;
  name: string;
  createdAt: Date;
}

export interface ClockEventFilter {
  personId?: string;
  siteId?: string;
  from?: Date;
  to?: Date;
}

/** Shifts, clock events, consents, leave and holidays: tenant-scoped SQL. */
@Injectable()
@HoldsSandboxData(20)
export class AttendanceRepository implements SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's clock events (shifts, leave and holidays stay). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.attendance_event WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  // --- shifts ---

  findShift(tenant: Tenant, id: string, m?: EntityManager): Promise<ShiftRow | null> {
    assertTenant(tenant);
    return row<ShiftRow>(
      this.m(m),
      `SELECT ${SHIFT_COLUMNS} FROM visitor.shift WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  listShifts(tenant: Tenant, limit: number, after?: CreatedAfter): Promise<ShiftRow[]> {
    return this.createdList<ShiftRow>(tenant, `SELECT ${SHIFT_COLUMNS} FROM visitor.shift`, limit, after);
  }

  /**
   * Inserts the row, or updates it in its tenant: the update is filtered on the row's own organisation and mode,
   * so another tenant's row with its id is never touched (the insert then fails on the primary key).
   */
  async saveShift(m: EntityManager, s: ShiftRow): Promise<void> {
    assertTenant(s);
    const values = [
      s.id,
      s.organisationId,
      s.livemode,
      s.name,
      s.siteId,
      s.startTime,
      s.endTime,
      s.graceMinutes,
      s.daysOfWeek,
      s.createdAt,
      s.updatedAt,
    ];
    const { affected } = await change(
      m,
      `UPDATE visitor.shift SET name = $4, site_id = $5, start_time = $6, end_time = $7, grace_minutes = $8,
              days_of_week = $9, created_at = $10, updated_at = $11
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      values,
    );
    if (!affected)
      await m.query(
        `INSERT INTO visitor.shift (id, organisation_id, livemode, name, site_id, start_time, end_time, grace_minutes,
                                    days_of_week, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        values,
      );
  }

  /** Puts people on a shift (each person has at most one; a new assignment replaces the old). */
  async assign(m: EntityManager, tenant: Tenant, shiftId: string, personIds: string[]): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `INSERT INTO visitor.shift_assignment (organisation_id, livemode, person_id, shift_id)
       SELECT $1, $2, p, $3 FROM unnest($4::text[]) AS p
       ON CONFLICT (organisation_id, livemode, person_id) DO UPDATE SET shift_id = EXCLUDED.shift_id`,
      [tenant.organisationId, tenant.livemode, shiftId, personIds],
    );
  }

  /** The person's shift with its site's time zone, or null. */
  async shiftOf(
    tenant: Tenant,
    personId: string,
    m?: EntityManager,
  ): Promise<(ShiftRow & { timeZone: string }) | null> {
    assertTenant(tenant);
    const [r] = await preparedQuery<{
      id: string;
      name: string;
      site_id: string;
      start_time: string;
      end_time: string;
      grace_minutes: number;
      days_of_week: number[];
      time_zone: string;
    }>(
      this.m(m),
      'attendance_shift_of',
      `SELECT s.id, s.name, s.site_id, s.start_time::text, s.end_time::text, s.grace_minutes, s.days_of_week, st.time_zone
         FROM visitor.shift_assignment a
         JOIN visitor.shift s ON s.id = a.shift_id AND s.organisation_id = a.organisation_id AND s.livemode = a.livemode
         JOIN published.organisations_sites st ON st.id = s.site_id
        WHERE a.organisation_id = $1 AND a.livemode = $2 AND a.person_id = $3`,
      [tenant.organisationId, tenant.livemode, personId],
    );
    if (!r) return null;
    return {
      id: r.id,
      organisationId: tenant.organisationId,
      livemode: tenant.livemode,
      name: r.name,
      siteId: r.site_id,
      startTime: r.start_time,
      endTime: r.end_time,
      graceMinutes: r.grace_minutes,
      daysOfWeek: r.days_of_week,
      createdAt: new Date(0),
      updatedAt: new Date(0),
      timeZone: r.time_zone,
    };
  }

  // --- clock events ---

  async insertEvent(m: EntityManager, e: ClockEventRow): Promise<void> {
    assertTenant(e);
    await m.query(
      `INSERT INTO visitor.attendance_event (id, organisation_id, livemode, person_id, site_id, direction, occurred_at,
                                             local_date, method, device_id, evidence_kind, evidence_ref, offline,
                                             late_minutes, shift_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        e.id,
        e.organisationId,
        e.livemode,
        e.personId,
        e.siteId,
        e.direction,
        e.occurredAt,
        e.localDate,
        e.method,
        e.deviceId,
        e.evidenceKind,
        e.evidenceRef,
        e.offline,
        e.lateMinutes,
        e.shiftId,
        e.createdAt,
      ],
    );
  }

  /** Whether the person already clocked in on that local date (only the first clock-in of a day can be late). */
  async clockedInOn(
    m: EntityManager | null,
    tenant: Tenant,
    personId: string,
    localDate: string,
  ): Promise<boolean> {
    assertTenant(tenant);
    const found = await row<unknown>(
      m ?? this.ds.manager,
      `SELECT 1 FROM visitor.attendance_event
        WHERE organisation_id = $1 AND livemode = $2 AND person_id = $3 AND local_date = $4 AND direction = 'in' LIMIT 1`,
      [tenant.organisationId, tenant.livemode, personId, localDate],
    );
    return found !== null;
  }

  /** Serialises the clock events of one person (first-of-day decisions) for the caller's transaction. */
  async lockPerson(m: EntityManager, tenant: Tenant, personId: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `visitor.attendance:${tenant.organisationId}:${tenant.livemode}:${personId}`,
    ]);
  }

  findEvent(tenant: Tenant, id: string): Promise<ClockEventRow | null> {
    assertTenant(tenant);
    return row<ClockEventRow>(
      this.ds,
      `SELECT ${EVENT_COLUMNS} FROM visitor.attendance_event WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  listEvents(
    tenant: Tenant,
    f: ClockEventFilter,
    limit: number,
    after?: CreatedAfter,
  ): Promise<ClockEventRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['organisation_id = $1', 'livemode = $2'];
    if (f.personId) where.push(`person_id = $${values.push(f.personId)}`);
    if (f.siteId) where.push(`site_id = $${values.push(f.siteId)}`);
    if (f.from) where.push(`occurred_at >= $${values.push(f.from)}`);
    if (f.to) where.push(`occurred_at < $${values.push(f.to)}`);
    if (after)
      where.push(
        `(created_at, id) > ($${values.push(after.createdAt)}::timestamptz, $${values.push(after.id)})`,
      );
    return rows<ClockEventRow>(
      this.ds,
      `SELECT ${EVENT_COLUMNS} FROM visitor.attendance_event WHERE ${where.join(' AND ')}
        ORDER BY created_at, id LIMIT $${values.push(limit)}`,
      values,
    );
  }

  /** People whose latest clock event at the site at or before `at` is a clock-in. */
  async onSite(tenant: Tenant, siteId: string, at: Date): Promise<string[]> {
    assertTenant(tenant);
    const onSite = await rows<{ person_id: string }>(
      this.ds,
      `SELECT person_id FROM (
         SELECT DISTINCT ON (person_id) person_id, direction
           FROM visitor.attendance_event
          WHERE organisation_id = $1 AND livemode = $2 AND site_id = $3 AND occurred_at <= $4
          ORDER BY person_id, occurred_at DESC, id DESC) last
        WHERE direction = 'in' ORDER BY person_id`,
      [tenant.organisationId, tenant.livemode, siteId, at],
    );
    return onSite.map((r) => r.person_id);
  }

  // --- consent ---

  async consents(
    tenant: Tenant,
    personId: string,
    m?: EntityManager,
  ): Promise<Map<EvidenceKind, { given: boolean; updatedAt: Date }>> {
    assertTenant(tenant);
    const given = await rows<{ kind: EvidenceKind; given: boolean; updated_at: Date }>(
      this.m(m),
      `SELECT kind, given, updated_at FROM visitor.attendance_consent
        WHERE organisation_id = $1 AND livemode = $2 AND person_id = $3`,
      [tenant.organisationId, tenant.livemode, personId],
    );
    return new Map(given.map((r) => [r.kind, { given: r.given, updatedAt: r.updated_at }]));
  }

  async setConsent(
    m: EntityManager,
    tenant: Tenant,
    personId: string,
    kind: EvidenceKind,
    given: boolean,
    now: Date,
  ): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `INSERT INTO visitor.attendance_consent (organisation_id, livemode, person_id, kind, given, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organisation_id, livemode, person_id, kind) DO UPDATE SET given = EXCLUDED.given, updated_at = EXCLUDED.updated_at`,
      [tenant.organisationId, tenant.livemode, personId, kind, given, now],
    );
  }

  // --- leave and holidays ---

  async insertLeave(m: EntityManager, tenant: Tenant, row: LeaveRow): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `INSERT INTO visitor.attendance_leave (id, organisation_id, livemode, person_id, leave_type, first_day, last_day, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.id,
        tenant.organisationId,
        tenant.livemode,
        row.personId,
        row.leaveType,
        row.firstDay,
        row.lastDay,
        row.createdAt,
      ],
    );
  }

  async insertHoliday(m: EntityManager, tenant: Tenant, row: HolidayRow): Promise<void> {
    assertTenant(tenant);
    await m.query(
      `INSERT INTO visitor.public_holiday (id, organisation_id, livemode, site_id, day, name, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.id, tenant.organisationId, tenant.livemode, row.siteId, row.day, row.name, row.createdAt],
    );
  }

  /** Leave records, oldest first (keyset on created_at, id), for the console's list. */
  listLeave(tenant: Tenant, limit: number, after?: CreatedAfter): Promise<LeaveRow[]> {
    return this.createdList<LeaveRow>(
      tenant,
      `SELECT id, person_id AS "personId", leave_type AS "leaveType", first_day::text AS "firstDay",
              last_day::text AS "lastDay", created_at AS "createdAt" FROM visitor.attendance_leave`,
      limit,
      after,
    );
  }

  /** Public holidays, oldest first (keyset on created_at, id), for the console's list. */
  listHolidays(tenant: Tenant, limit: number, after?: CreatedAfter): Promise<HolidayRow[]> {
    return this.createdList<HolidayRow>(
      tenant,
      `SELECT id, site_id AS "siteId", day::text AS day, name, created_at AS "createdAt" FROM visitor.public_holiday`,
      limit,
      after,
    );
  }

  /** `select` (a SELECT … FROM one tenant-scoped table) in (created_at, id) order after the cursor's key. */
  private createdList<R>(tenant: Tenant, select: string, limit: number, after?: CreatedAfter): Promise<R[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    const where = ['organisation_id = $1', 'livemode = $2'];
    if (after)
      where.push(
        `(created_at, id) > ($${values.push(after.createdAt)}::timestamptz, $${values.push(after.id)})`,
      );
    return rows<R>(
      this.ds,
      `${select} WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT $${values.push(limit)}`,
      values,
    );
  }

  // --- timesheets ---

  /** Counts per local date of [from, to] (today: the last date that can be absent). */
  summary(tenant: Tenant, from: string, to: string, today: string): Promise<DaySummaryRow[]> {
    assertTenant(tenant);
    return preparedQuery(this.ds, 'attendance_summary', SUMMARY, [
      tenant.organisationId,
      tenant.livemode,
      from,
      to,
      today,
      null,
    ]);
  }

  /** Timesheet days of some people (ordered by person, then date). */
  async cells(
    tenant: Tenant,
    from: string,
    to: string,
    today: string,
    personIds: string[],
  ): Promise<DayCell[]> {
    assertTenant(tenant);
    return preparedQuery(
      this.ds,
      'attendance_cells',
      `SELECT * FROM (${dayCells(true)}) c ORDER BY person_id, day`,
      [tenant.organisationId, tenant.livemode, from, to, today, personIds],
    );
  }

  /** People with a shift, in employee order (employee number, then name), a page at a time. */
  async staffPage(
    tenant: Tenant,
    after: string | null,
    limit: number,
  ): Promise<
    {
      id: string;
      name: string;
      employee_number: string | null;
      department: string | null;
      sort_key: string;
    }[]
  > {
    assertTenant(tenant);
    return rows(
      this.ds,
      `SELECT p.id, p.name, p.employee_number, p.department, coalesce(p.employee_number, '') || '|' || p.name || '|' || p.id AS sort_key
         FROM visitor.shift_assignment a
         JOIN published.people_staff p ON p.id = a.person_id AND p.organisation_id = a.organisation_id AND p.livemode = a.livemode
        WHERE a.organisation_id = $1 AND a.livemode = $2 AND p.active
          AND ($3::text IS NULL OR coalesce(p.employee_number, '') || '|' || p.name || '|' || p.id > $3)
        ORDER BY sort_key LIMIT $4`,
      [tenant.organisationId, tenant.livemode, after, limit],
    );
  }
}
