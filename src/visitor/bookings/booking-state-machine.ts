import { ApiError } from '../../common/errors/api-error';
import type { EventTypeOf } from '../events/event-types';

export const BOOKING_STATUSES = ['pending', 'confirmed', 'declined', 'expired', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export type BookingAction = 'confirm' | 'decline' | 'expire' | 'cancel' | 'reschedule';

export interface BookingTransition {
  to: BookingStatus;
  /** Events recorded with the change, each carrying the booking as GET returns it afterwards. */
  events: EventTypeOf<'booking'>[];
  /** Timestamp columns the transition sets. */
  sets: ('confirmed_at' | 'declined_at' | 'expired_at' | 'cancelled_at' | 'rescheduled_at')[];
  /** What happens to the booking's place in its slot: given back, moved to the new slot, or kept. */
  slot: 'release' | 'move' | 'keep';
  /** What happens to the linked visit. */
  visit: 'create' | 'cancel' | 'move' | 'none';
}

/** The one transition table of a booking (creation is `initialTransition`). Anything not listed is invalid_state. */
export const BOOKING_TRANSITIONS: Record<
  BookingAction,
  { from: readonly BookingStatus[]; t: BookingTransition }
> = {
  confirm: {
    from: ['pending'],
    t: {
      to: 'confirmed',
      events: ['booking.confirmed'],
      sets: ['confirmed_at'],
      slot: 'keep',
      visit: 'create',
    },
  },
  decline: {
    from: ['pending'],
    t: {
      to: 'declined',
      events: ['booking.declined'],
      sets: ['declined_at'],
      slot: 'release',
      visit: 'none',
    },
  },
  expire: {
    from: ['pending'],
    t: { to: 'expired', events: ['booking.expired'], sets: ['expired_at'], slot: 'release', visit: 'none' },
  },
  cancel: {
    from: ['confirmed'],
    t: {
      to: 'cancelled',
      events: ['booking.cancelled'],
      sets: ['cancelled_at'],
      slot: 'release',
      visit: 'cancel',
    },
  },
  reschedule: {
    from: ['confirmed'],
    t: {
      to: 'confirmed',
      events: ['booking.rescheduled'],
      sets: ['rescheduled_at'],
      slot: 'move',
      visit: 'move',
    },
  },
};

/** A new booking: confirmed at once (and a visit) when its type needs no confirmation, else pending. */
export function initialTransition(requiresConfirmation: boolean): BookingTransition {
  return requiresConfirmation
    ? { to: 'pending', events: ['booking.created'], sets: [], slot: 'keep', visit: 'none' }
    : {
        to: 'confirmed',
        events: ['booking.created', 'booking.confirmed'],
        sets: ['confirmed_at'],
        slot: 'keep',
        visit: 'create',
      };
}

const VERB: Record<BookingAction, string> = {
  confirm: 'confirmed',
  decline: 'declined',
  expire: 'expired',
  cancel: 'cancelled',
  reschedule: 'rescheduled',
};

/** The transition for `action` from `status`, or `invalid_state` naming the statuses that allow it. */
export function bookingTransition(status: BookingStatus, action: BookingAction): BookingTransition {
  const rule = BOOKING_TRANSITIONS[action];
  if (!rule.from.includes(status))
    throw new ApiError(
      'invalid_state',
      `A booking in status ${status} cannot be ${VERB[action]}; only a booking in status ${rule.from.join(' or ')} can.`,
    );
  return rule.t;
}
