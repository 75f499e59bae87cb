import { Body, Controller, Get, Param, Post, Put, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { AttendanceService } from '../../visitor/attendance/attendance.service';
import { HolidayBody, LeaveBody, SaveShiftBody } from '../../visitor/attendance/dto/attendance.request';
import { ShiftResponse } from '../../visitor/attendance/dto/attendance.response';
import { TimesheetExport } from '../../visitor/attendance/timesheet-export';
import { StaffImport } from '../../visitor/people/staff-import';
import { ConsoleAuth, ConsoleTenant, CurrentAccount } from '../auth/console-auth';
import type { Tenant } from '../../visitor/platform/tenant';
import { ModeQuery } from '../console-mode';
import { auditAttendance, timesheetFile } from './attendance-actions';
import { StaffImportBody, TimesheetQuery } from './attendance.request';

/**
 * Attendance settings in the console (Owners and Admins): shifts and who works them, leave, public holidays; the
 * staff CSV import and the timesheet download. One mode at a time (`?mode=test` for the sandbox). Every change is
 * audited (as the attendance page's: `shift.saved`, `attendance_leave.recorded`, `public_holiday.recorded`,
 * `people.imported`).
 */
@ApiTags('Console')
@Controller('console')
export class ConsoleAttendanceController {
  constructor(
    private readonly attendance: AttendanceService,
    private readonly exporter: TimesheetExport,
    private readonly staff: StaffImport,
    private readonly audit: AuditService,
  ) {}

  private async shiftSaved(
    req: FastifyRequest,
    a: ConsoleCaller,
    t: Tenant,
    saved: ShiftResponse,
    people: number,
  ): Promise<ShiftResponse> {
    await auditAttendance(
      this.audit,
      req,
      a,
      t,
      'shift.saved',
      { type: 'shift', id: saved.id },
      {
        name: saved.name,
        site_id: saved.site_id,
        people,
      },
    );
    return saved;
  }

  @Post('shifts')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Create a shift (and put people on it)' })
  @ApiOkResponse({ type: ShiftResponse })
  async createShift(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Body() body: SaveShiftBody,
    @Query() _q: ModeQuery,
    @Req() req: FastifyRequest,
  ): Promise<ShiftResponse> {
    const saved = await this.attendance.saveShift(t, null, body);
    return this.shiftSaved(req, a, t, saved, body.person_ids?.length ?? 0);
  }

  @Put('shifts/:shift_id')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Replace a shift (and put more people on it)' })
  @ApiOkResponse({ type: ShiftResponse })
  async saveShift(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Param('shift_id') id: string,
    @Body() body: SaveShiftBody,
    @Query() _q: ModeQuery,
    @Req() req: FastifyRequest,
  ): Promise<ShiftResponse> {
    const saved = await this.attendance.saveShift(t, id, body);
    return this.shiftSaved(req, a, t, saved, body.person_ids?.length ?? 0);
  }

  @Post('attendance/leave')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Record leave of a person (local dates, inclusive)' })
  async addLeave(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Body() body: LeaveBody,
    @Query() _q: ModeQuery,
    @Req() req: FastifyRequest,
  ): Promise<{ id: string }> {
    const made = await this.attendance.addLeave(t, body);
    await auditAttendance(
      this.audit,
      req,
      a,
      t,
      'attendance_leave.recorded',
      { type: 'leave', id: made.id },
      {
        ...body,
      },
    );
    return made;
  }

  @Post('attendance/holidays')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Record a public holiday (of one site, or every site)' })
  async addHoliday(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Body() body: HolidayBody,
    @Query() _q: ModeQuery,
    @Req() req: FastifyRequest,
  ): Promise<{ id: string }> {
    const made = await this.attendance.addHoliday(t, body);
    await auditAttendance(
      this.audit,
      req,
      a,
      t,
      'public_holiday.recorded',
      { type: 'holiday', id: made.id },
      {
        ...body,
      },
    );
    return made;
  }

  @Post('people/import')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Staff CSV import (base64 file): all or nothing; a dry run reports every bad row',
  })
  async importStaff(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Body() body: StaffImportBody,
    @Query() _q: ModeQuery,
    @Req() req: FastifyRequest,
  ) {
    const result = await this.staff.run(t, Readable.from([Buffer.from(body.file_base64, 'base64')]), {
      dryRun: body.dry_run ?? false,
    });
    if (!result.dry_run && !result.problems.length)
      await auditAttendance(this.audit, req, a, t, 'people.imported', undefined, {
        rows: result.rows,
        created: result.created,
        updated: result.updated,
      });
    return result;
  }

  @Get('attendance/export')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Timesheet CSV download: the daily file, or the summary file (one row per person)',
  })
  @ApiProduces('text/csv')
  export(@ConsoleTenant() t: Tenant, @Query() q: TimesheetQuery): Promise<StreamableFile> {
    return timesheetFile(this.exporter, t, q.from, q.to, q.kind ?? 'daily');
  }
}
