import { Body, Controller, Get, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeEndpoint, ApiExcludeController } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { Readable } from 'node:stream';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { ForBrowsers, type PageRouteConfig } from '../../pages/page-framework';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AttendanceService, MAX_SUMMARY_DAYS } from '../../visitor/attendance/attendance.service';
import { HolidayBody, LeaveBody, SaveShiftBody } from '../../visitor/attendance/dto/attendance.request';
import { MAX_EXPORT_DAYS, TimesheetExport } from '../../visitor/attendance/timesheet-export';
import { AuditService } from '../../visitor/audit/audit.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PeopleService } from '../../visitor/people/people.service';
import { STAFF_COLUMNS, StaffImport, type ImportResult } from '../../visitor/people/staff-import';
import type { ListQuery, Page } from '../../visitor/platform/pagination';
import type { Tenant } from '../../visitor/platform/tenant';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks, type PagerLinks } from '../frame/pager';
import { auditAttendance, timesheetFile } from './attendance-actions';

type Form = Record<string, string | undefined>;
type Params = Record<string, unknown>;

const PATH = '/console/attendance';
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const STATUSES = [
  ['present', 'Present'],
  ['late', 'Late'],
  ['on_leave', 'On leave'],
  ['absent', 'Absent'],
  ['public_holiday', 'Public holiday'],
  ['rest_day', 'Rest day'],
] as const;
/** The sub-pages of the attendance page, in the order of its tabs. */
const TABS = [
  ['', 'Daily summary'],
  ['/shifts', 'Shifts'],
  ['/leave', 'Leave'],
  ['/holidays', 'Public holidays'],
  ['/staff', 'Staff'],
  ['/import', 'Import staff'],
] as const;
/** The largest CSV the import form takes: URL-encoded (commas become %2C) it stays under the 1 MiB body limit. */
const MAX_CSV_CHARS = 300_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const tenantOf = (t: ConsoleTenantOf): Tenant => ({ organisationId: t.organisationId, livemode: t.livemode });
const modeOf = (t: ConsoleTenantOf) => (t.livemode ? 'live' : 'test');

/** The field problems of a DTO built from a form, as `field: message` lines. */
function dtoProblems<T extends object>(cls: new () => T, plain: object): { value: T; problems: string[] } {
  const value = plainToInstance(cls, plain);
  const flat = (errors: ValidationError[], at = ''): string[] =>
    errors.flatMap((e) => [
      ...Object.values(e.constraints ?? {}).map((m) => `${at}${e.property}: ${m}`),
      ...flat(e.children ?? [], `${at}${e.property}.`),
    ]);
  return { value, problems: flat(validateSync(value, { whitelist: true })) };
}

/** A refusal of the person's input (validation, not found) as lines to show, or null for any other error. */
function refusal(e: unknown): string[] | null {
  if (!(e instanceof ApiError) || !['validation_failed', 'not_found', 'conflict'].includes(e.code))
    return null;
  return e.errors.length
    ? e.errors.map((x) => `${x.location.replace(/^body\./, '')}: ${x.message}`)
    : [e.detail];
}

/** The cursor of a list page from the URL (other query keys are the pager's and the mode's). */
const listQuery = (q: Params): ListQuery => (str(q.cursor) ? { cursor: str(q.cursor) } : {});

/**
 * Attendance in the console (`/console/attendance`, issue 31 page 7), for Owners and Admins, in the console's mode:
 * the daily summary of a range of dates with the timesheet download (the CSV `attendance export` writes), shifts
 * (list, create with the people who work them), leave, public holidays, the staff list and the staff CSV import
 * (pasted; a preview lists every bad row with its line and writes nothing; the import is all or nothing, as the
 * CLI's). Every change goes through the attendance and people services, as the JSON endpoints and the CLI do, and
 * is audited with the request.
 */
@ApiExcludeController()
@Controller('console/attendance')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleAttendancePageController {
  constructor(
    private readonly attendance: AttendanceService,
    private readonly exporter: TimesheetExport,
    private readonly staff: StaffImport,
    private readonly people: PeopleService,
    private readonly organisations: OrganisationsService,
    private readonly audit: AuditService,
  ) {}

  /** What every attendance sub-page gives its template: title, tabs, mode, CSRF token. */
  private base(t: ConsoleTenantOf, here: string, title: string, csrf: string) {
    const mode = modeOf(t);
    return {
      title,
      csrf,
      mode,
      tabs: TABS.map(([sub, words]) => ({
        href: `${PATH}${sub}?mode=${mode}`,
        words,
        current: sub === here,
      })),
      action: (sub: string) => `${PATH}${sub}?mode=${mode}`,
      notice: null as string | null,
      error: null as { message: string; requestId: string } | null,
      problems: [] as string[],
    };
  }

  private failed(req: FastifyRequest, message: string) {
    return { message, requestId: String(req.id) };
  }

  private async siteNames(tenant: Tenant): Promise<Map<string, string>> {
    return new Map((await this.organisations.siteNames(tenant)).map((s) => [s.id, s.name]));
  }

  // --- daily summary and timesheet download ---

  @Get()
  @ConsolePage('console-attendance')
  async summary(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const today = await this.attendance.today(tenant);
    const from = str(query.from) || DateTime.fromISO(today).minus({ days: 6 }).toISODate()!;
    const to = str(query.to) || today;
    const page = {
      ...this.base(t, '', 'Attendance', csrf),
      today,
      range: { from, to },
      statuses: STATUSES.map(([key, words]) => ({ key, words })),
      days: [] as Record<string, string | number>[],
      maxSummary: MAX_SUMMARY_DAYS,
      maxExport: MAX_EXPORT_DAYS,
    };
    const code = str(query.error);
    const rid = str(query.request_id);
    if (code === 'timesheet' && REQUEST_ID.test(rid))
      page.error = {
        message: `The timesheet was not made: give the first and last dates as YYYY-MM-DD, the last not before the first, at most ${MAX_EXPORT_DAYS} dates.`,
        requestId: rid,
      };
    try {
      if (!DATE.test(from) || !DATE.test(to))
        throw ApiError.validation([{ location: 'query.from', message: 'give dates as YYYY-MM-DD' }]);
      const summary = await this.attendance.summary(tenant, { from, to });
      page.days = summary.data.map((d) => ({
        ...d,
        weekday: DAYS[DateTime.fromISO(d.date, { zone: 'UTC' }).weekday - 1],
        href: `${PATH}/days/${d.date}?mode=${page.mode}`,
      }));
    } catch (e) {
      const problems = refusal(e);
      if (!problems) throw e;
      page.problems = problems.map((p) => p.replace(/^query\./, ''));
      // A refused timesheet keeps its own message and request id; the summary's problems are listed under it.
      page.error ??= this.failed(req, `No summary for those dates (at most ${MAX_SUMMARY_DAYS} dates).`);
    }
    return page;
  }

  /** One date of the daily timesheet: each person with a shift, their status, times and minutes. */
  @Get('days/:date')
  @ConsolePage('console-attendance-day')
  async day(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('date') date: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    if (!DATE.test(date) || !DateTime.fromISO(date, { zone: 'UTC' }).isValid)
      throw ApiError.notFound('The page');
    const words = new Map<string, string>([...STATUSES, ['upcoming', 'Not yet']]);
    const list = await this.listed(
      t,
      req,
      `/days/${date}`,
      query,
      {},
      (q) => this.exporter.day(tenant, date, q),
      (r) => ({ ...r, statusWords: words.get(r.status) ?? r.status }),
    );
    return {
      ...this.base(t, '', `${date} · Attendance`, csrf),
      ...list,
      date,
      weekday: DAYS[DateTime.fromISO(date, { zone: 'UTC' }).weekday - 1],
      back: `${PATH}?mode=${modeOf(t)}`,
    };
  }

  /**
   * The timesheet CSV of the console's mode (daily or summary file), as a download; dates it refuses send the
   * browser back to the summary with the failed request's id (the request log has its code).
   */
  @Get('timesheet')
  @RouteConfig({ page: true } satisfies PageRouteConfig)
  @ApiExcludeEndpoint()
  async timesheet(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query() query: Params,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const from = str(query.from);
    const to = str(query.to);
    const kind = str(query.kind) === 'summary' ? 'summary' : 'daily';
    let file: StreamableFile;
    try {
      if (!DATE.test(from) || !DATE.test(to))
        throw ApiError.validation([{ location: 'query.from', message: 'give dates as YYYY-MM-DD' }]);
      file = await timesheetFile(this.exporter, tenantOf(t), from, to, kind);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'validation_failed') throw e;
      req.ctx.errorCode = e.code;
      const back = new URLSearchParams({
        mode: modeOf(t),
        ...(DATE.test(from) ? { from } : {}),
        ...(DATE.test(to) ? { to } : {}),
        error: 'timesheet',
        request_id: String(req.id),
      });
      return void (await reply.redirect(`${PATH}?${back.toString()}`, 303));
    }
    const headers = file.getHeaders();
    await reply
      .header('Content-Type', headers.type!)
      .header('Content-Disposition', headers.disposition!)
      .header('Cache-Control', 'no-store')
      .send(file.getStream());
  }

  /**
   * One page of a list sub-page: its rows and the pager (the links keep `keep`, the list's filters, and the mode);
   * a cursor the list refuses (an old link) is an error on the page, with no rows.
   */
  private async listed<T>(
    t: ConsoleTenantOf,
    req: FastifyRequest,
    sub: string,
    query: Params,
    keep: Params,
    fetch: (q: ListQuery) => Promise<Page<T>>,
    row: (x: T) => Record<string, unknown>,
  ) {
    try {
      const page = await fetch(listQuery(query));
      return {
        rows: page.data.map(row),
        pager: pagerLinks(
          `${PATH}${sub}`,
          { cursor: query.cursor, trail: query.trail, ...keep, mode: modeOf(t) },
          page,
        ) as PagerLinks | null,
        error: null as { message: string; requestId: string } | null,
      };
    } catch (e) {
      if (!refusal(e)) throw e;
      return {
        rows: [],
        pager: null,
        error: this.failed(req, 'This page link is out of date; start again from the first page.'),
      };
    }
  }

  /**
   * A form's outcome: `write` (which returns the notice) when the form had no `problems`, and the sub-page
   * (`view`) with the notice; refused input (the form's problems or the service's) re-renders it with the values
   * given, each problem, and `failure` with the request id. Nothing is written when anything is refused.
   */
  private async submitted(
    req: FastifyRequest,
    view: () => Promise<Record<string, unknown>>,
    values: object,
    problems: string[],
    write: () => Promise<string>,
    failure: string,
  ) {
    try {
      if (problems.length) throw ApiError.validation(problems.map((message) => ({ location: '', message })));
      const notice = await write();
      return { ...(await view()), notice };
    } catch (e) {
      const refused = refusal(e);
      if (!refused) throw e;
      return {
        ...(await view()),
        values,
        problems: refused.map((l) => l.replace(/^: /, '')),
        error: this.failed(req, failure),
      };
    }
  }

  // --- shifts ---

  private async shiftsView(t: ConsoleTenantOf, csrf: string, query: Params, req: FastifyRequest) {
    const tenant = tenantOf(t);
    const sites = await this.siteNames(tenant);
    const list = await this.listed(
      t,
      req,
      '/shifts',
      query,
      {},
      (q) => this.attendance.shifts(tenant, q),
      (s) => ({
        id: s.id,
        name: s.name,
        site: sites.get(s.site_id) ?? s.site_id,
        hours: `${s.start_time}–${s.end_time}`,
        grace: s.grace_minutes,
        days: s.days_of_week.map((d) => DAYS[d - 1]).join(', '),
        updated: when(s.updated_at),
      }),
    );
    return {
      ...this.base(t, '/shifts', 'Shifts · Attendance', csrf),
      ...list,
      days: DAYS.map((words, i) => ({ value: i + 1, words })),
      sites: [...sites].map(([id, name]) => ({ id, name })),
      values: {
        name: '',
        site_id: '',
        start_time: '09:00',
        end_time: '17:00',
        grace_minutes: '0',
        days: [1, 2, 3, 4, 5] as number[],
        people: '',
      },
    };
  }

  @Get('shifts')
  @ConsolePage('console-attendance-shifts')
  shifts(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    return this.shiftsView(t, csrf, query, req);
  }

  /** People named by e-mail or `person_…` id (one per line, or separated by commas): their ids, or problems. */
  private async peopleNamed(tenant: Tenant, text: string): Promise<{ ids: string[]; problems: string[] }> {
    const refs = [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
    const emails = refs.filter((r) => !r.startsWith('person_'));
    const byEmail = await this.people.idsByEmail(tenant, emails);
    const problems = emails
      .filter((e) => !byEmail.has(e.toLowerCase()))
      .map((e) => `people: no person with the e-mail ${e} in this mode`);
    const ids = refs.map((r) => (r.startsWith('person_') ? r : byEmail.get(r.toLowerCase())));
    return { ids: [...new Set(ids.filter((x): x is string => !!x))], problems };
  }

  /** Creates a shift and puts the people named on it (the service checks the site, times and people). */
  @Post('shifts')
  @ConsolePage('console-attendance-shifts')
  @CheckCsrf()
  async createShift(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const days = DAYS.map((_, i) => i + 1).filter((d) => form[`day_${d}`] === 'on');
    const values = {
      name: str(form.name),
      site_id: str(form.site_id),
      start_time: str(form.start_time),
      end_time: str(form.end_time),
      grace_minutes: str(form.grace_minutes) || '0',
      days,
      people: str(form.people),
    };
    const named = await this.peopleNamed(tenant, values.people);
    const grace = Number(values.grace_minutes);
    const { value, problems } = dtoProblems(SaveShiftBody, {
      name: values.name,
      site_id: values.site_id,
      start_time: values.start_time,
      end_time: values.end_time,
      grace_minutes: Number.isInteger(grace) ? grace : values.grace_minutes,
      days_of_week: days,
      person_ids: named.ids,
    });
    const n = named.ids.length;
    return this.submitted(
      req,
      () => this.shiftsView(t, csrf, {}, req),
      values,
      [...problems, ...named.problems],
      async () => {
        const saved = await this.attendance.saveShift(tenant, null, value);
        await auditAttendance(
          this.audit,
          req,
          a,
          tenant,
          'shift.saved',
          { type: 'shift', id: saved.id },
          {
            name: saved.name,
            site_id: saved.site_id,
            people: n,
          },
        );
        return `Shift ${saved.name} created${n ? `, with ${n} ${n === 1 ? 'person' : 'people'} on it` : ''}.`;
      },
      'The shift was not created.',
    );
  }

  // --- leave ---

  private async leaveView(t: ConsoleTenantOf, csrf: string, query: Params, req: FastifyRequest) {
    const tenant = tenantOf(t);
    const names = new Map<string, string>();
    const list = await this.listed(
      t,
      req,
      '/leave',
      query,
      {},
      async (q) => {
        const page = await this.attendance.leavePage(tenant, q);
        for (const id of new Set(page.data.map((l) => l.person_id)))
          names.set(id, (await this.people.find(tenant, id))?.name ?? id);
        return page;
      },
      (l) => ({
        id: l.id,
        person: names.get(l.person_id) ?? l.person_id,
        type: l.leave_type,
        first: l.first_day,
        last: l.last_day,
        recorded: when(l.created_at),
      }),
    );
    return {
      ...this.base(t, '/leave', 'Leave · Attendance', csrf),
      ...list,
      values: { person: '', leave_type: 'annual', first_day: '', last_day: '' },
    };
  }

  @Get('leave')
  @ConsolePage('console-attendance-leave')
  leave(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    return this.leaveView(t, csrf, query, req);
  }

  /** Records leave of one person (named by e-mail or id); the same path's JSON endpoint serves other clients. */
  @Post('leave')
  @ForBrowsers()
  @ConsolePage('console-attendance-leave')
  @CheckCsrf()
  async addLeave(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const values = {
      person: str(form.person),
      leave_type: str(form.leave_type),
      first_day: str(form.first_day),
      last_day: str(form.last_day) || str(form.first_day),
    };
    const named = values.person
      ? await this.peopleNamed(tenant, values.person)
      : { ids: [], problems: ['person: give an e-mail address or a person_… id'] };
    if (named.ids.length > 1) named.problems.push('person: name one person');
    const { value, problems } = dtoProblems(LeaveBody, {
      person_id: named.ids[0] ?? '',
      leave_type: values.leave_type,
      first_day: values.first_day,
      last_day: values.last_day,
    });
    return this.submitted(
      req,
      () => this.leaveView(t, csrf, {}, req),
      values,
      named.problems.length
        ? [...named.problems, ...problems.filter((p) => !p.startsWith('person_id'))]
        : problems,
      async () => {
        const made = await this.attendance.addLeave(tenant, value);
        await auditAttendance(
          this.audit,
          req,
          a,
          tenant,
          'attendance_leave.recorded',
          {
            type: 'leave',
            id: made.id,
          },
          { ...value },
        );
        return `Leave recorded: ${value.leave_type}, ${value.first_day} to ${value.last_day}.`;
      },
      'The leave was not recorded.',
    );
  }

  // --- public holidays ---

  private async holidaysView(t: ConsoleTenantOf, csrf: string, query: Params, req: FastifyRequest) {
    const tenant = tenantOf(t);
    const sites = await this.siteNames(tenant);
    const list = await this.listed(
      t,
      req,
      '/holidays',
      query,
      {},
      (q) => this.attendance.holidayPage(tenant, q),
      (h) => ({
        id: h.id,
        day: h.day,
        name: h.name,
        site: h.site_id ? (sites.get(h.site_id) ?? h.site_id) : 'Every site',
        recorded: when(h.created_at),
      }),
    );
    return {
      ...this.base(t, '/holidays', 'Public holidays · Attendance', csrf),
      ...list,
      sites: [...sites].map(([id, name]) => ({ id, name })),
      values: { site_id: '', day: '', name: '' },
    };
  }

  @Get('holidays')
  @ConsolePage('console-attendance-holidays')
  holidays(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    return this.holidaysView(t, csrf, query, req);
  }

  /** Records a public holiday of one site or every site; the same path's JSON endpoint serves other clients. */
  @Post('holidays')
  @ForBrowsers()
  @ConsolePage('console-attendance-holidays')
  @CheckCsrf()
  async addHoliday(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const values = { site_id: str(form.site_id), day: str(form.day), name: str(form.name) };
    const { value, problems } = dtoProblems(HolidayBody, {
      ...(values.site_id ? { site_id: values.site_id } : {}),
      day: values.day,
      name: values.name,
    });
    return this.submitted(
      req,
      () => this.holidaysView(t, csrf, {}, req),
      values,
      problems,
      async () => {
        const made = await this.attendance.addHoliday(tenant, value);
        await auditAttendance(
          this.audit,
          req,
          a,
          tenant,
          'public_holiday.recorded',
          {
            type: 'holiday',
            id: made.id,
          },
          { ...value },
        );
        return `Public holiday recorded: ${value.name} on ${value.day}.`;
      },
      'The holiday was not recorded.',
    );
  }

  // --- staff ---

  /** Hosts and employees (the people list, searchable by name or e-mail); after an import, its counts. */
  @Get('staff')
  @ConsolePage('console-attendance-staff')
  async staffList(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Params,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const q = str(query.q).slice(0, 200);
    const sites = await this.siteNames(tenant);
    const list = await this.listed(
      t,
      req,
      '/staff',
      query,
      { q },
      (lq) => this.people.page(tenant, { ...lq, ...(q ? { q } : {}) }),
      (p) => ({
        id: p.id,
        name: p.name,
        email: p.email,
        department: p.department ?? '',
        jobTitle: p.job_title ?? '',
        employeeNumber: p.employee_number ?? '',
        sites: p.site_ids.map((s) => sites.get(s) ?? s).join(', '),
        active: p.active,
      }),
    );
    const view = { ...this.base(t, '/staff', 'Staff · Attendance', csrf), ...list, q };
    const created = Number(query.created);
    const updated = Number(query.updated);
    if (Number.isSafeInteger(created) && Number.isSafeInteger(updated) && created >= 0 && updated >= 0)
      view.notice = `Imported: ${created} new and ${updated} updated.`;
    return view;
  }

  // --- staff CSV import ---

  private importView(t: ConsoleTenantOf, csrf: string) {
    return {
      ...this.base(t, '/import', 'Import staff · Attendance', csrf),
      columns: STAFF_COLUMNS.join(','),
      csv: '',
      result: null as (ImportResult & { ready: boolean }) | null,
    };
  }

  @Get('import')
  @ConsolePage('console-attendance-import')
  importForm(@ConsoleTenant() t: ConsoleTenantOf, @CsrfToken() csrf: string, @Query() query: Params) {
    const view = this.importView(t, csrf);
    const rid = str(query.request_id);
    if (str(query.error) === 'changed' && REQUEST_ID.test(rid))
      view.error = {
        message:
          'Nothing was imported: the file had problems when it was imported (the staff changed since the preview, or the file was empty). Paste it and preview again.',
        requestId: rid,
      };
    return view;
  }

  /**
   * Runs the staff import on the pasted CSV: a dry run for `preview`, the real import for `confirm` (after a
   * preview without problems). Either way, every bad row is listed with its line, column and reason, and a file
   * with any problem writes nothing (the import's rule: all or nothing).
   */
  private async runImport(
    t: ConsoleTenantOf,
    form: Form,
    dryRun: boolean,
    req: FastifyRequest,
  ): Promise<{ csv: string; result: ImportResult | null; error: string[] | null }> {
    const csv = form.csv ?? '';
    if (!csv.trim()) return { csv, result: null, error: ['csv: paste the file (with its header line)'] };
    if (csv.length > MAX_CSV_CHARS)
      return {
        csv: '',
        result: null,
        error: [
          `csv: at most ${MAX_CSV_CHARS} characters here; import larger files with the CLI (gatehouse people import)`,
        ],
      };
    try {
      const result = await this.staff.run(tenantOf(t), Readable.from([Buffer.from(csv, 'utf8')]), { dryRun });
      return { csv, result, error: null };
    } catch (e) {
      const lines = refusal(e);
      if (!lines) throw e;
      req.ctx.errorCode = (e as ApiError).code;
      return { csv, result: null, error: lines.map((l) => l.replace(/^file:/, 'csv:')) };
    }
  }

  @Post('import')
  @ConsolePage('console-attendance-import')
  @CheckCsrf()
  async preview(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const view = this.importView(t, csrf);
    const { csv, result, error } = await this.runImport(t, form, true, req);
    view.csv = csv;
    if (error) return { ...view, problems: error, error: this.failed(req, 'The file could not be read.') };
    const r = result!;
    view.result = { ...r, ready: r.problems.length === 0 };
    if (r.problems.length)
      return {
        ...view,
        error: this.failed(
          req,
          `${r.problems.length} ${r.problems.length === 1 ? 'problem' : 'problems'} in the file: nothing was imported. Fix the rows below and preview again.`,
        ),
      };
    return view;
  }

  /**
   * The real import of a previewed file: on success to the staff list with the counts; a file that has problems
   * now (the staff changed since the preview) writes nothing and goes back to the import page, which says so.
   */
  @Post('import/confirm')
  @PostedForm()
  async confirmImport(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const { result } = await this.runImport(t, form, false, req);
    if (!result || result.problems.length) {
      req.ctx.errorCode ??= 'validation_failed';
      const q = new URLSearchParams({ mode: modeOf(t), error: 'changed', request_id: String(req.id) });
      return { url: `${PATH}/import?${q.toString()}`, statusCode: 303 };
    }
    await auditAttendance(this.audit, req, a, tenantOf(t), 'people.imported', undefined, {
      rows: result.rows,
      created: result.created,
      updated: result.updated,
    });
    return {
      url: `${PATH}/staff?mode=${modeOf(t)}&created=${result.created}&updated=${result.updated}`,
      statusCode: 303,
    };
  }
}
