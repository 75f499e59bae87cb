import { ApiProperty } from '@nestjs/swagger';
import { PublicFormResponse } from '../../forms/dto/forms.response';
import { WEEKDAYS } from '../availability';
import type { BookingTypeRow } from '../booking-types.repository';

export class OpeningWindowResponse {
  @ApiProperty({ example: '09:00', description: 'Local time (HH:mm) in the site time zone' }) start: string;
  @ApiProperty({ example: '17:00', description: 'Local time (HH:mm), after start' }) end: string;
}

export class WeeklyHoursResponse {
  @ApiProperty({ type: [OpeningWindowResponse] }) mon: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) tue: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) wed: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) thu: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) fri: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) sat: OpeningWindowResponse[];
  @ApiProperty({ type: [OpeningWindowResponse] }) sun: OpeningWindowResponse[];
}

export class BookingAvailabilityRulesResponse {
  @ApiProperty({ example: 'Europe/London', description: "The site's IANA time zone" }) time_zone: string;
  @ApiProperty({ type: WeeklyHoursResponse }) weekly_hours: WeeklyHoursResponse;
  @ApiProperty({ type: [String], example: ['2026-12-25'], description: 'Local dates without slots' })
  closed_dates: string[];
}

export class BookingTypeResponse {
  @ApiProperty({ example: 'btype_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ example: 'Site tour' }) name: string;
  @ApiProperty({ example: 'meeting', description: 'Visit type of the visit a confirmed booking creates' })
  visit_type: string;
  @ApiProperty() site_id: string;
  @ApiProperty({
    type: [String],
    description: 'Hosts (person_…) a booking may name; the first is the default',
  })
  host_ids: string[];
  @ApiProperty({ example: 30 }) duration_minutes: number;
  @ApiProperty({ example: 0, description: 'Gap after each slot before the next starts' })
  buffer_minutes: number;
  @ApiProperty({ example: 1, description: 'Bookings (pending plus confirmed) one slot holds' })
  capacity: number;
  @ApiProperty() requires_confirmation: boolean;
  @ApiProperty({ example: 24 }) confirmation_window_hours: number;
  @ApiProperty({ type: BookingAvailabilityRulesResponse }) availability: BookingAvailabilityRulesResponse;
  @ApiProperty({ example: 60, description: 'Slots are offered up to this many days ahead' })
  horizon_days: number;
  @ApiProperty({ example: 120, description: 'A slot must start at least this long after booking' })
  min_notice_minutes: number;
  @ApiProperty({ description: 'Published: open to publishable keys, with its public_form' }) public: boolean;
  @ApiProperty({
    type: PublicFormResponse,
    nullable: true,
    description: 'The intake questions asked of the attendee; null for private booking types',
  })
  public_form: PublicFormResponse | null;
  @ApiProperty({ description: 'Taking bookings' }) active: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function toBookingTypeResponse(
  r: BookingTypeRow,
  timeZone: string,
  publicForm: PublicFormResponse | null,
): BookingTypeResponse {
  const weekly = Object.fromEntries(
    WEEKDAYS.map((d) => [d, (r.weeklyHours[d] ?? []).map((w) => ({ start: w.start, end: w.end }))]),
  ) as unknown as WeeklyHoursResponse;
  return {
    id: r.id,
    name: r.name,
    visit_type: r.visitType,
    site_id: r.siteId,
    host_ids: r.hostIds,
    duration_minutes: r.durationMinutes,
    buffer_minutes: r.bufferMinutes,
    capacity: r.capacity,
    requires_confirmation: r.requiresConfirmation,
    confirmation_window_hours: r.confirmationWindowHours,
    availability: { time_zone: timeZone, weekly_hours: weekly, closed_dates: [...r.closedDates].sort() },
    horizon_days: r.horizonDays,
    min_notice_minutes: r.minNoticeMinutes,
    public: r.isPublic,
    public_form: r.isPublic ? publicForm : null,
    active: r.active,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export class SlotResponse {
  @ApiProperty({ format: 'date-time' }) start: string;
  @ApiProperty({ format: 'date-time' }) end: string;
  @ApiProperty({
    example: '2026-03-30T09:00:00.000+01:00',
    description: "The start on the site's wall clock, with its UTC offset",
  })
  local_start: string;
  @ApiProperty({ example: 1, description: 'Places left (at least 1: full slots are not listed)' })
  remaining: number;
}

export class AvailabilityResponse {
  @ApiProperty() booking_type_id: string;
  @ApiProperty({ example: 'Europe/London' }) time_zone: string;
  @ApiProperty({ example: '2026-03-28', description: 'First local date covered' }) from: string;
  @ApiProperty({ example: '2026-04-03', description: 'Last local date covered (inclusive)' }) to: string;
  @ApiProperty({ type: [SlotResponse] }) data: SlotResponse[];
}
