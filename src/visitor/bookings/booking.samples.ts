import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { BOOKING_TRANSITIONS, initialTransition } from './booking-state-machine';
import { BookingResponse, toBookingResponse } from './dto/booking.response';

declare module '../events/event-types' {
  interface EventObjects {
    'booking.created': BookingResponse;
    'booking.confirmed': BookingResponse;
    'booking.declined': BookingResponse;
    'booking.expired': BookingResponse;
    'booking.cancelled': BookingResponse;
    'booking.rescheduled': BookingResponse;
  }
}

/** Sample `data.object` of `booking.*`: a Booking in the state the transition table gives the event type. */
export const sampleBooking: SampleFactory<'booking'> = (type, tenant, now) => {
  const t =
    type === 'booking.created'
      ? initialTransition(true)
      : (Object.values(BOOKING_TRANSITIONS).find((r) => r.t.events.includes(type))?.t ??
        initialTransition(false));
  const start = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000 + 86_400_000);
  const at = (c: string) => (t.sets.includes(c as never) ? now : null);
  const confirmed = t.to === 'confirmed' || t.to === 'cancelled';
  return {
    ...toBookingResponse({
      id: newId('booking'),
      organisationId: tenant.organisationId,
      livemode: tenant.livemode,
      bookingTypeId: newId('btype'),
      status: t.to,
      source: 'api',
      startsAt: start,
      endsAt: new Date(start.getTime() + 1_800_000),
      siteId: newId('site'),
      hostId: newId('person'),
      attendeeName: 'Ama Mensah',
      attendeePhone: '+233244123456',
      attendeeEmail: 'ama.mensah@example.com',
      attendeeCompany: 'Example Ltd',
      customFields: {},
      visitId: confirmed ? newId('visit') : null,
      confirmBy: t.to === 'pending' ? new Date(now.getTime() + 86_400_000) : null,
      confirmedAt: confirmed ? now : null,
      declinedAt: at('declined_at'),
      declineReason: t.to === 'declined' ? 'Fully booked that day' : null,
      shareReasonWithAttendee: false,
      expiredAt: at('expired_at'),
      cancelledAt: at('cancelled_at'),
      cancelReason: t.to === 'cancelled' ? 'Plans changed' : null,
      rescheduledAt: at('rescheduled_at'),
      createdAt: now,
      updatedAt: now,
    }),
  };
};
