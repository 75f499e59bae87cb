import { ApiProperty } from '@nestjs/swagger';
import { BOOKING_STATUSES } from '../booking-state-machine';
import type { BookingRow } from '../bookings.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class BookingAttendeeResponse {
  @ApiProperty({ type: String, nullable: true, description: 'null once erased' }) name: string | null;
  @ApiProperty({ type: String, nullable: true, example: '+233244123456' }) phone: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) company: string | null;
}

export class BookingResponse {
  @ApiProperty({ example: 'booking_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() booking_type_id: string;
  @ApiProperty({ enum: BOOKING_STATUSES }) status: string;
  @ApiProperty({ format: 'date-time' }) start: string;
  @ApiProperty({ format: 'date-time' }) end: string;
  @ApiProperty() site_id: string;
  @ApiProperty() host_id: string;
  @ApiProperty({ type: BookingAttendeeResponse }) attendee: BookingAttendeeResponse;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Answers to the intake questions' })
  custom_fields: Record<string, unknown>;
  @ApiProperty({
    enum: ['api', 'publishable_key'],
    description: 'Made with a secret key or a publishable key',
  })
  source: string;
  @ApiProperty({ type: String, nullable: true, description: 'The visit, once the booking is confirmed' })
  visit_id: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "Pending: expires then (the booking type's confirmation window from booking, never later than the slot's start)",
  })
  confirm_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) confirmed_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) declined_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Shown to publishable keys (the attendee) only when share_reason_with_attendee',
  })
  decline_reason: string | null;
  @ApiProperty() share_reason_with_attendee: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expired_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) cancelled_at: string | null;
  @ApiProperty({ type: String, nullable: true }) cancel_reason: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) rescheduled_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/**
 * The booking as its reader sees it. `attendee`: the view of the attendee's side (a publishable key), which gets
 * the decline reason only when the decliner chose to share it; the organisation's own credentials always do.
 */
export function toBookingResponse(
  b: BookingRow,
  view: 'organisation' | 'attendee' = 'organisation',
): BookingResponse {
  return {
    id: b.id,
    booking_type_id: b.bookingTypeId,
    status: b.status,
    start: b.startsAt.toISOString(),
    end: b.endsAt.toISOString(),
    site_id: b.siteId,
    host_id: b.hostId,
    attendee: {
      name: b.attendeeName,
      phone: b.attendeePhone,
      email: b.attendeeEmail,
      company: b.attendeeCompany,
    },
    custom_fields: b.customFields,
    source: b.source,
    visit_id: b.visitId,
    confirm_by: iso(b.confirmBy),
    confirmed_at: iso(b.confirmedAt),
    declined_at: iso(b.declinedAt),
    decline_reason: view === 'attendee' && !b.shareReasonWithAttendee ? null : b.declineReason,
    share_reason_with_attendee: b.shareReasonWithAttendee,
    expired_at: iso(b.expiredAt),
    cancelled_at: iso(b.cancelledAt),
    cancel_reason: b.cancelReason,
    rescheduled_at: iso(b.rescheduledAt),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
}
