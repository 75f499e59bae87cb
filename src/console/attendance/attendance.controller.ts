import { Body, Controller, Get, Param, Post, Put, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { PassThrough, Readable } from 'node:stream';
import { AttendanceService } from '../../visitor/attendance/attendance.service';
import { HolidayBody, LeaveBody, SaveShiftBody } from '../../visitor/attendance/dto/attendance.request';
import { ShiftResponse } from '../../visitor/attendance/dto/attendance.response';
import { TimesheetExport } from '../../visitor/attendance/timesheet-export';
import { StaffImport } from '../../visitor/people/staff-import';
import { ConsoleAuth, ConsoleTenant } from '../auth/console-auth';
import type { Tenant } from '../../visitor/platform/tenant';
import { ModeQuery } from '../console-mode';
import { StaffImportBody, TimesheetQuery } from './attendance.request';

/**
 * Attendance settings in the console (Owners and Admins): shifts and who works them, leave, public holidays; the
 * staff CSV import and the timesheet download. One mode at a time (`?mode=test` for the sandbox).
 */
@ApiTags('Console')
@Controller('console')
export class ConsoleAttendanceController {
  constructor(
    private readonly attendance: AttendanceService,
    private readonly exporter: TimesheetExport,
    private readonly staff: StaffImport,
  ) {}

  @Post('shifts')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Create a shift (and put people on it)' })
  @ApiOkResponse({ type: ShiftResponse })
  createShift(
    @ConsoleTenant() t: Tenant,
    @Body() body: SaveShiftBody,
    @Query() _q: ModeQuery,
  ): Promise<ShiftResponse> {
    return this.attendance.saveShift(t, null, body);
  }

  @Put('shifts/:shift_id')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Replace a shift (and put more people on it)' })
  @ApiOkResponse({ type: ShiftResponse })
  saveShift(
    @ConsoleTenant() t: Tenant,
    @Param('shift_id') id: string,
    @Body() body: SaveShiftBody,
    @Query() _q: ModeQuery,
  ): Promise<ShiftResponse> {
    return this.attendance.saveShift(t, id, body);
  }

  @Post('attendance/leave')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Record leave of a person (local dates, inclusive)' })
  addLeave(
    @ConsoleTenant() t: Tenant,
    @Body() body: LeaveBody,
    @Query() _q: ModeQuery,
  ): Promise<{ id: string }> {
    return this.attendance.addLeave(t, body);
  }

  @Post('attendance/holidays')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Record a public holiday (of one site, or every site)' })
  addHoliday(
    @ConsoleTenant() t: Tenant,
    @Body() body: HolidayBody,
    @Query() _q: ModeQuery,
  ): Promise<{ id: string }> {
    return this.attendance.addHoliday(t, body);
  }

  @Post('people/import')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Staff CSV import (base64 file): all or nothing; a dry run reports every bad row',
  })
  importStaff(@ConsoleTenant() t: Tenant, @Body() body: StaffImportBody, @Query() _q: ModeQuery) {
    return this.staff.run(t, Readable.from([Buffer.from(body.file_base64, 'base64')]), {
      dryRun: body.dry_run ?? false,
    });
  }

  @Get('attendance/export')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Timesheet CSV download: the daily file, or the summary file (one row per person)',
  })
  @ApiProduces('text/csv')
  async export(@ConsoleTenant() t: Tenant, @Query() q: TimesheetQuery): Promise<StreamableFile> {
    const out = new PassThrough();
    const kind = q.kind ?? 'daily';
    // Range problems are refused before the first byte is sent; later failures end the stream.
    const tenant = t;
    const first = this.exporter.write(tenant, q.from, q.to, kind, out);
    await Promise.race([first, new Promise((r) => out.once('readable', r))]);
    first.catch((e: Error) => out.destroy(e));
    return new StreamableFile(out, {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="timesheet-${kind}-${q.from}-${q.to}.csv"`,
    });
  }
}
