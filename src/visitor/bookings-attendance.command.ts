import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { INestApplicationContext } from '@nestjs/common';
import {
  CliCommand,
  CliContext,
  flag,
  requiredFlag,
  UsageError,
  domainErrorsAsUsage,
} from '../cli/cli-command';
import { AttendanceService } from './attendance/attendance.service';
import { TimesheetExport } from './attendance/timesheet-export';
import {
  HolidayBody,
  LeaveBody,
  RecordClockEventBody,
  SaveShiftBody,
} from './attendance/dto/attendance.request';
import { SaveBookingTypeBody } from './booking-types/dto/booking-type.request';
import { BookingTypesService } from './booking-types/booking-types.service';
import { STAFF_COLUMNS, StaffImport } from './people/staff-import';
import type { Tenant } from './platform/tenant';
import { organisationId } from './visitor.command';

/** The booking and attendance services of the application's object graph. */
export function bookingAttendanceServices(app: Pick<INestApplicationContext, 'get'>) {
  return {
    attendance: app.get(AttendanceService),
    timesheets: app.get(TimesheetExport),
    staff: app.get(StaffImport),
    bookingTypes: app.get(BookingTypesService),
  };
}

/** `--org <org_…|slug> [--mode live|test]` → the tenant. */
async function tenantFrom(ctx: CliContext, args: string[]): Promise<Tenant> {
  const id = await organisationId(ctx, requiredFlag(args, '--org'));
  const mode = flag(args, '--mode') ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
  return { organisationId: id, livemode: mode === 'live' };
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
  options: [
    {
      flags: '<file.csv>',
      description: `UTF-8 with a header row; columns ${STAFF_COLUMNS.join(', ')} (name and email required; email matches existing people; site is a site name or site_… id, several separated by semicolons). An example: docs/examples/staff.csv`,
    },
    {
      flags: '--dry-run',
      description:
        'check every row and write nothing; exits 1 when a row is bad (each with its line and column)',
    },
  ],
  async run(args, ctx) {
    const [sub, file] = args;
    if (sub !== 'import' || !file || file.startsWith('--'))
      throw new UsageError(`usage: gatehouse ${this.usage}`);
    const tenant = await tenantFrom(ctx, args);
    const result = await cli(async () =>
      bookingAttendanceServices(await ctx.app()).staff.run(tenant, createReadStream(file), {
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
    "attendance export --org <org> --from YYYY-MM-DD --to YYYY-MM-DD [--summary] [--out file.csv] [--mode live|test] | attendance shift --org <org> [--id shift_…] --json '{…}' | attendance leave --org <org> --json '{…}' | attendance holiday --org <org> --json '{…}' | attendance clock --org <org> [--mode live|test] --json '{…}'",
  summary:
    'Timesheet export (daily or summary CSV, streamed), shifts, leave and public holidays, and a clock-in or clock-out a terminal missed',
  async run(args, ctx) {
    const tenant = await tenantFrom(ctx, args);
    const s = bookingAttendanceServices(await ctx.app());
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
    // As POST /v1/attendance/events records it: the same checks, and the same events to webhook endpoints.
    if (sub === 'clock') return cli(() => s.attendance.record(tenant, jsonBody(args, RecordClockEventBody)));
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
    const tenant = await tenantFrom(ctx, args);
    const s = bookingAttendanceServices(await ctx.app());
    if (args[0] === 'save')
      return cli(() =>
        s.bookingTypes.save(tenant, flag(args, '--id') ?? null, jsonBody(args, SaveBookingTypeBody)),
      );
    if (args[0] === 'list') return cli(() => s.bookingTypes.page(tenant, false, { limit: 100 }));
    throw new UsageError(`usage: gatehouse ${this.usage}`);
  },
};
