import { ApiProperty } from '@nestjs/swagger';
import type { ClockEventRow, ShiftRow } from '../attendance.repository';

export class ShiftResponse {
  @ApiProperty({ example: 'shift_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() site_id: string;
  @ApiProperty({ example: '09:00', description: "Local time in the site's time zone" }) start_time: string;
  @ApiProperty({ example: '17:00' }) end_time: string;
  @ApiProperty({ example: 10, description: 'A clock-in this many minutes after the start is not late' })
  grace_minutes: number;
  @ApiProperty({
    type: [Number],
    example: [1, 2, 3, 4, 5],
    description: 'ISO days, 1 = Monday; other days are rest days',
  })
  days_of_week: number[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export const toShiftResponse = (s: ShiftRow): ShiftResponse => ({
  id: s.id,
  name: s.name,
  site_id: s.siteId,
  start_time: s.startTime.slice(0, 5),
  end_time: s.endTime.slice(0, 5),
  grace_minutes: s.graceMinutes,
  days_of_week: [...s.daysOfWeek].sort(),
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

export class EvidenceResponse {
  @ApiProperty({ enum: ['face', 'selfie', 'location'] }) kind: string;
  @ApiProperty() reference: string;
}

export class ClockEventResponse {
  @ApiProperty({ example: 'attendance_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() person_id: string;
  @ApiProperty() site_id: string;
  @ApiProperty({ enum: ['in', 'out'] }) direction: string;
  @ApiProperty({ format: 'date-time' }) occurred_at: string;
  @ApiProperty({
    example: '2026-03-02',
    description: "The date on the site's clock (the person's shift site)",
  })
  local_date: string;
  @ApiProperty({ enum: ['card', 'pin', 'face', 'fingerprint', 'qr', 'manual'] }) method: string;
  @ApiProperty({ type: String, nullable: true }) device_id: string | null;
  @ApiProperty({ type: EvidenceResponse, nullable: true }) evidence: EvidenceResponse | null;
  @ApiProperty() offline: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "First clock-in of a shift day: minutes after the shift's start when beyond the grace period, else 0; null otherwise",
  })
  late_minutes: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The shift the clock-in was measured against' })
  shift_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const toClockEventResponse = (e: ClockEventRow): ClockEventResponse => ({
  id: e.id,
  person_id: e.personId,
  site_id: e.siteId,
  direction: e.direction,
  occurred_at: e.occurredAt.toISOString(),
  local_date: e.localDate,
  method: e.method,
  device_id: e.deviceId,
  evidence: e.evidenceKind ? { kind: e.evidenceKind, reference: e.evidenceRef ?? '' } : null,
  offline: e.offline,
  late_minutes: e.lateMinutes,
  shift_id: e.shiftId,
  created_at: e.createdAt.toISOString(),
});

export class DaySummaryResponse {
  @ApiProperty({ example: '2026-03-02' }) date: string;
  @ApiProperty({ description: 'Clocked in on time (or within grace)' }) present: number;
  @ApiProperty({ description: 'Clocked in beyond the grace period' }) late: number;
  @ApiProperty() on_leave: number;
  @ApiProperty({ description: 'A shift day without a clock-in (dates up to today)' }) absent: number;
  @ApiProperty() public_holiday: number;
  @ApiProperty() rest_day: number;
}

export class AttendanceSummaryResponse {
  @ApiProperty({ example: '2026-03-01' }) from: string;
  @ApiProperty({ example: '2026-03-31' }) to: string;
  @ApiProperty({ type: [DaySummaryResponse] }) data: DaySummaryResponse[];
}

export class EvidenceConsentResponse {
  @ApiProperty() person_id: string;
  @ApiProperty({ description: 'Consent to face evidence (and face clock-ins)' }) face: boolean;
  @ApiProperty() selfie: boolean;
  @ApiProperty() location: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}
