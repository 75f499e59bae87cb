import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import type { Config } from '../config/config';
import { Transactions } from '../database/unit-of-work';
import { CliCommand, flag, requiredFlag, UsageError, domainErrorsAsUsage } from '../cli/cli-command';
import { AttendanceRepository } from './attendance/attendance.repository';
import { AttendanceService } from './attendance/attendance.service';
import { TimesheetExport } from './attendance/timesheet-export';
import { HolidayBody, LeaveBody, SaveShiftBody } from './attendance/dto/attendance.request';
import { SaveBookingTypeBody } from './booking-types/dto/booking-type.request';
import { BookingTypesRepository } from './booking-types/booking-types.repository';
import { BookingTypesService } from './booking-types/booking-types.service';
import { EventsRepository } from './events/events.repository';
import { EventsService } from './events/events.service';
import { FormsRepository } from './forms/forms.repository';
import { FormsService } from './forms/forms.service';
import { OrganisationsRepository } from './organisations/organisations.repository';
import { PeopleRepository } from './people/people.repository';
import { PeopleService } from './people/people.service';
import { AuditRepository } from './audit/audit.repository';
import { AuditService } from './audit/audit.service';
import { OrganisationsService } from './organisations/organisations.service';
import { StaffImport } from './people/staff-import';
import { CursorCodecProvider } from './platform/cursor-codec.provider';
import type { Tenant } from './platform/tenant';
import { VisitTypesRepository } from './visit-types/visit-types.repository';
import { VisitTypesService } from './visit-types/visit-types.service';

/** The booking and attendance services wired by hand on the CLI's DataSource (no Nest container in the CLI). */
export function bookingAttendanceServices(ds: DataSource, config: Config) {
  const clock = new Clock();
  const tx = new Transactions(ds);
  const cursors = new CursorCodecProvider(config);
  const orgs = new OrganisationsService(
    new OrganisationsRepository(ds),
    tx,
    new AuditService(new AuditRepository(ds), clock),
    clock,
  );
  const events = new EventsService(new EventsRepository(ds), clock, cursors);
  const forms = new FormsService(new FormsRepository(ds), clock, tx);
  const peopleRepo = new PeopleRepository(ds);
  const people = new PeopleService(peopleRepo, forms, orgs, events, tx, clock, cursors);
  const attendanceRepo = new AttendanceRepository(ds);
  const attendance = new AttendanceService(attendanceRepo, people, orgs, events, tx, clock, cursors);
  return {
    attendance,
    timesheets: new TimesheetExport(attendanceRepo, attendance),
    staff: new StaffImport(peopleRepo, orgs, tx, clock),
    bookingTypes: new BookingTypesService(
      new BookingTypesRepository(ds),
      orgs,
      people,
      new VisitTypesService(new VisitTypesRepository(ds), forms, clock, tx, cursors),
      forms,
      tx,
      clock,
      cursors,
    ),
  };
}

/** `--org <org_…|slug> [--mode live|test]` → the tenant. */
async function tenantFrom(ds: DataSource, args: string[]): Promise<Tenant> {
  const ref = requiredFlag(args, '--org');
  const org = await new OrganisationsRepository(ds).findOrganisationBySlugOrId(ref);
  if (!org) throw new UsageError(`no organisation ${ref} (give its org_… id or slug)`);
  const mode = flag(args, '--mode') ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
  return { organisationId: org.id, livemode: mode === 'live' };
}

/** Domain errors become usage errors naming the fields (their JSON locations: the input is `--json`). */
const cli = domainErrorsAsUsage;

/** A JSON body from `--json '{…}'` or `--file body.json`, validated as the console validates it. */
function jsonBody<T extends object>(args: string[], cls: new () => T): T {
  const inline = flag(args, '--json');
  const file = flag(args, '--file');
  if (!inline && !file) throw new UsageError("give the body as --json '{…}' or --file body.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(inline ?? readFileSync(file!, 'utf8'));
  } catch (e) {
    throw new UsageError(`the body is not JSON: ${(e as Error).message}`);
  }
  const body = plainToInstance(cls, parsed);
  const flat = (errors: ValidationError[], at = ''): string[] =>
    errors.flatMap((e) => [
      ...Object.values(e.constraints ?? {}).map((m) => `${at}${e.property}: ${m}`),
      ...flat(e.children ?? [], `${at}${e.property}.`),
    ]);
  const problems = flat(validateSync(body, { whitelist: true, forbidNonWhitelisted: true }));
  if (problems.length) throw new UsageError(['the body is not valid:', ...problems].join('\n  '));
  return body;
}

export const peopleCommand: CliCommand = {
  name: 'people',
  usage: 'people import <file.csv> --org <org> [--mode live|test] [--dry-run]',
  summary: 'Staff CSV import: all or nothing; a dry run reports every bad row with its line and column',
  async run(args, ctx) {
    const [sub, file] = args;
    if (sub !== 'import' || !file || file.startsWith('--'))
      throw new UsageError(`usage: gatehouse ${this.usage}`);
    const ds = await ctx.dataSource();
    const tenant = await tenantFrom(ds, args);
    const result = await cli(() =>
      bookingAttendanceServices(ds, ctx.config).staff.run(tenant, createReadStream(file), {
        dryRun: args.includes('--dry-run'),
      }),
    );
    if (result.problems.length) process.exitCode = 1;
    return result;
  },
};

export const attendanceCommand: CliCommand = {
  name: 'attendance',
  usage:
    "attendance export --org <org> --from YYYY-MM-DD --to YYYY-MM-DD [--summary] [--out file.csv] [--mode live|test] | attendance shift --org <org> [--id shift_…] --json '{…}' | attendance leave --org <org> --json '{…}' | attendance holiday --org <org> --json '{…}'",
  summary: 'Timesheet export (daily or summary CSV, streamed), and shifts, leave and public holidays',
  async run(args, ctx) {
    const ds = await ctx.dataSource();
    const tenant = await tenantFrom(ds, args);
    const s = bookingAttendanceServices(ds, ctx.config);
    const sub = args[0];
    if (sub === 'export') {
      const out = flag(args, '--out');
      const stream = out ? createWriteStream(out) : process.stdout;
      const rows = await cli(() =>
        s.timesheets.write(
          tenant,
          requiredFlag(args, '--from'),
          requiredFlag(args, '--to'),
          args.includes('--summary') ? 'summary' : 'daily',
          stream,
        ),
      );
      if (out) {
        await finished(stream);
        return { file: out, rows };
      }
      return '';
    }
    if (sub === 'shift')
      return cli(() =>
        s.attendance.saveShift(tenant, flag(args, '--id') ?? null, jsonBody(args, SaveShiftBody)),
      );
    if (sub === 'leave') return cli(() => s.attendance.addLeave(tenant, jsonBody(args, LeaveBody)));
    if (sub === 'holiday') return cli(() => s.attendance.addHoliday(tenant, jsonBody(args, HolidayBody)));
    throw new UsageError(`usage: gatehouse ${this.usage}`);
  },
};

export const bookingTypesCommand: CliCommand = {
  name: 'booking-types',
  usage:
    "booking-types save --org <org> [--mode live|test] [--id btype_…] --json '{…}' | booking-types list --org <org>",
  summary:
    'Create, replace and list booking types (weekly hours in the site time zone, capacity, publishing)',
  async run(args, ctx) {
    const ds = await ctx.dataSource();
    const tenant = await tenantFrom(ds, args);
    const s = bookingAttendanceServices(ds, ctx.config);
    if (args[0] === 'save')
      return cli(() =>
        s.bookingTypes.save(tenant, flag(args, '--id') ?? null, jsonBody(args, SaveBookingTypeBody)),
      );
    if (args[0] === 'list') return cli(() => s.bookingTypes.page(tenant, false, { limit: 100 }));
    throw new UsageError(`usage: gatehouse ${this.usage}`);
  },
};
