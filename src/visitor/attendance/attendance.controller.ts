import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { AttendanceService } from './attendance.service';
import {
  ClockEventsQuery,
  EvidenceConsentBody,
  RecordClockEventBody,
  ShiftsQuery,
  SummaryQuery,
} from './dto/attendance.request';
import {
  AttendanceSummaryResponse,
  ClockEventResponse,
  EvidenceConsentResponse,
  ShiftResponse,
} from './dto/attendance.response';
import { ApiErrors } from '../platform/doc-decorators';

@ApiTags('Attendance')
@Controller('v1')
export class AttendanceController {
  constructor(private readonly attendance: AttendanceService) {}

  @Get('shifts')
  @Authorize({ scope: 'attendance:read' })
  @ApiOperation({
    summary: 'Shift patterns, oldest first',
    description: 'Each with its start, end, grace period and days.',
    operationId: 'listShifts',
  })
  @ApiOkResponse({ type: PageOf(ShiftResponse) })
  shifts(@CurrentTenant() t: Tenant, @Query() q: ShiftsQuery): Promise<Page<ShiftResponse>> {
    return this.attendance.shifts(t, q);
  }

  @Post('attendance/events')
  @Authorize({ scope: 'attendance:write' })
  @ApiErrors('consent_required')
  @ApiOperation({
    summary: 'Record a clock-in or clock-out',
    description:
      "From the organisation's own terminal; late minutes are counted against the person's shift; `consent_required` for evidence without consent.",
    operationId: 'recordAttendanceEvent',
  })
  @ApiCreatedResponse({ type: ClockEventResponse })
  record(@CurrentTenant() t: Tenant, @Body() body: RecordClockEventBody): Promise<ClockEventResponse> {
    return this.attendance.record(t, body);
  }

  @Get('attendance/events')
  @Authorize({ scope: 'attendance:read' })
  @ApiOperation({
    summary: 'Clock events, in the order they were recorded',
    operationId: 'listAttendanceEvents',
  })
  @ApiOkResponse({ type: PageOf(ClockEventResponse) })
  events(@CurrentTenant() t: Tenant, @Query() q: ClockEventsQuery): Promise<Page<ClockEventResponse>> {
    return this.attendance.clockEvents(t, q);
  }

  @Get('attendance/events/:attendance_event_id')
  @Authorize({ scope: 'attendance:read' })
  @ApiOperation({ summary: 'One clock event', operationId: 'getAttendanceEvent' })
  @ApiOkResponse({ type: ClockEventResponse })
  event(@CurrentTenant() t: Tenant, @Param('attendance_event_id') id: string): Promise<ClockEventResponse> {
    return this.attendance.event(t, id);
  }

  @Get('attendance/summary')
  @Authorize({ scope: 'attendance:read' })
  @ApiOperation({
    summary: 'Attendance summary per local date',
    description:
      'Per local date: people present, late, on leave, absent, on a public holiday, on a rest day (at most 31 dates).',
    operationId: 'getAttendanceSummary',
  })
  @ApiOkResponse({ type: AttendanceSummaryResponse })
  summary(@CurrentTenant() t: Tenant, @Query() q: SummaryQuery): Promise<AttendanceSummaryResponse> {
    return this.attendance.summary(t, q);
  }

  @Post('people/:person_id/attendance-evidence')
  @HttpCode(200)
  @Authorize({ scope: 'attendance:manage' })
  @ApiOperation({
    summary: "Record an employee's evidence consent",
    description: "Records or withdraws an employee's consent to face, selfie or location evidence.",
    operationId: 'recordAttendanceEvidenceConsent',
  })
  @ApiOkResponse({ type: EvidenceConsentResponse })
  consent(
    @CurrentTenant() t: Tenant,
    @Param('person_id') id: string,
    @Body() body: EvidenceConsentBody,
  ): Promise<EvidenceConsentResponse> {
    return this.attendance.recordConsent(t, id, body);
  }
}
