import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { DateTime } from 'luxon';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ApiError } from '../../common/errors/api-error';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { AttendanceRepository, DayCell } from './attendance.repository';
import { AttendanceService, checkDateRange } from './attendance.service';

/** The longest export range: a year of dates (the file is streamed, a page of people at a time). */
export const MAX_EXPORT_DAYS = 366;
const PEOPLE_PER_PAGE = 200;

export const DAILY_COLUMNS = [
  'date',
  'employee_number',
  'name',
  'department',
  'site',
  'shift',
  'status',
  'first_in',
  'last_out',
  'worked_minutes',
  'late_minutes',
  'early_leave_minutes',
  'overtime_minutes',
  'leave_type',
  'flags',
] as const;

export const SUMMARY_COLUMNS = [
  'employee_number',
  'name',
  'department',
  'from',
  'to',
  'present',
  'late',
  'absent',
  'on_leave',
  'public_holiday',
  'rest_day',
  'worked_minutes',
  'late_minutes',
  'early_leave_minutes',
  'overtime_minutes',
] as const;

/** A moment on the site's clock, ISO 8601 with its offset, to the second (`2026-03-02T09:05:00+00:00`). */
const localTime = (d: Date | null, zone: string) =>
  d ? DateTime.fromJSDate(d, { zone }).toISO({ suppressMilliseconds: true }) : '';

const flagsOf = (c: DayCell) =>
  [c.offline && 'offline', c.manual_edit && 'manual_edit', c.missing_clock_out && 'missing_clock_out']
    .filter(Boolean)
    .join(';');

type Staff = { id: string; name: string; employee_number: string | null; department: string | null };

/** One row of the daily file (its columns, in their order): a person's day. */
export type DailyRow = Record<(typeof DAILY_COLUMNS)[number], string | number | null> & { status: string };

/** A person's day as the daily file writes it (also what the console shows for one date). */
export function dailyRow(p: Staff, c: DayCell): DailyRow {
  return {
    date: c.day,
    employee_number: p.employee_number ?? '',
    name: p.name,
    department: p.department ?? '',
    site: c.site_name,
    shift: c.shift_name,
    status: c.status,
    first_in: localTime(c.first_in, c.time_zone),
    last_out: localTime(c.last_out, c.time_zone),
    worked_minutes: c.worked_minutes,
    late_minutes: c.late_minutes,
    early_leave_minutes: c.early_leave_minutes,
    overtime_minutes: c.overtime_minutes,
    leave_type: c.status === 'on_leave' ? (c.leave_type ?? '') : '',
    flags: flagsOf(c),
  };
}

/**
 * The timesheet files (csv-stringify, streamed): the daily file, one row per person with a shift per local date up
 * to today (days still to come have no row), and the summary file, one row per person for the period. Both come
 * from the one definition of a timesheet day (AttendanceRepository's day cells).
 */
@Injectable()
export class TimesheetExport {
  constructor(
    private readonly repo: AttendanceRepository,
    private readonly attendance: AttendanceService,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** The people with a shift (employee order) and their timesheet days of [from, to], a page of people at a time. */
  private async cellsOf(
    tenant: Tenant,
    from: string,
    to: string,
    today: string,
    people: (Staff & { sort_key: string })[],
  ): Promise<Map<string, DayCell[]>> {
    const cells = await this.repo.cells(
      tenant,
      from,
      to,
      today,
      people.map((p) => p.id),
    );
    const byPerson = new Map<string, DayCell[]>();
    for (const c of cells) {
      const days = byPerson.get(c.person_id);
      if (days) days.push(c);
      else byPerson.set(c.person_id, [c]);
    }
    return byPerson;
  }

  /**
   * One local date of the daily file for the console, a page of people (employee order) at a time with a signed
   * cursor; a date after today has the status `upcoming` (the file has no row for it).
   */
  async day(tenant: Tenant, date: string, q: ListQuery): Promise<Page<DailyRow>> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !DateTime.fromISO(date, { zone: 'UTC' }).isValid)
      throw ApiError.validation([{ location: 'path.date', message: 'is not a calendar date (YYYY-MM-DD)' }]);
    const limit = q.limit ?? 25;
    const after = q.cursor
      ? String(this.cursors.codec.decode('timesheet_day', tenant, { ...q, cursor: q.cursor }, 1)[0])
      : null;
    const people = await this.repo.staffPage(tenant, after, limit + 1);
    const shown = people.slice(0, limit);
    const byPerson = await this.cellsOf(tenant, date, date, await this.attendance.today(tenant), shown);
    const hasMore = people.length > limit;
    return {
      // one cell per person: staffPage and the cells both take the active people with a shift
      data: shown.flatMap((p) => (byPerson.get(p.id) ?? []).map((c) => dailyRow(p, c))),
      has_more: hasMore,
      next_cursor: hasMore
        ? this.cursors.codec.encode('timesheet_day', tenant, q, [shown[shown.length - 1].sort_key])
        : null,
    };
  }

  async write(
    tenant: Tenant,
    from: string,
    to: string,
    kind: 'daily' | 'summary',
    out: Writable,
  ): Promise<number> {
    checkDateRange(from, to, MAX_EXPORT_DAYS);
    const today = await this.attendance.today(tenant);
    const csv = stringify({
      header: true,
      columns: [...(kind === 'daily' ? DAILY_COLUMNS : SUMMARY_COLUMNS)],
    });
    csv.pipe(out);
    const put = async (row: Record<string, unknown>) => {
      if (!csv.write(row)) await once(csv, 'drain');
    };
    let rows = 0;
    for (let after: string | null = null; ;) {
      const people = await this.repo.staffPage(tenant, after, PEOPLE_PER_PAGE);
      if (!people.length) break;
      after = people[people.length - 1].sort_key;
      const byPerson = await this.cellsOf(tenant, from, to, today, people);
      for (const p of people) {
        const days = (byPerson.get(p.id) ?? []).filter((c) => c.status !== 'upcoming');
        const who = {
          employee_number: p.employee_number ?? '',
          name: p.name,
          department: p.department ?? '',
        };
        if (kind === 'daily')
          for (const c of days) {
            await put(dailyRow(p, c));
            rows++;
          }
        else {
          const count = (s: string) => days.filter((c) => c.status === s).length;
          const sum = (k: 'worked_minutes' | 'late_minutes' | 'early_leave_minutes' | 'overtime_minutes') =>
            days.reduce((n, c) => n + c[k], 0);
          await put({
            ...who,
            from,
            to,
            present: count('present'),
            late: count('late'),
            absent: count('absent'),
            on_leave: count('on_leave'),
            public_holiday: count('public_holiday'),
            rest_day: count('rest_day'),
            worked_minutes: sum('worked_minutes'),
            late_minutes: sum('late_minutes'),
            early_leave_minutes: sum('early_leave_minutes'),
            overtime_minutes: sum('overtime_minutes'),
          });
          rows++;
        }
      }
      if (people.length < PEOPLE_PER_PAGE) break;
    }
    csv.end();
    await once(csv, 'end').catch(() => undefined);
    return rows;
  }
}
