import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { BookingTypesService } from '../../../src/visitor/booking-types/booking-types.service';
import type { Fixture, World } from './tenancy-fixtures';
import { expectStatus } from './tenancy-fixtures';

/**
 * Tenancy fixtures of booking types, bookings, shifts and clock events (spread into tenancy-fixtures.ts). Booking
 * types, shifts and leave have no /v1 route that makes them: the services the console uses do.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let seq = 0;
/** A free half-hour slot of the fixture types (open all day, every day, 1,000 places): a new one each call. */
const nextSlot = () =>
  new Date(Math.ceil(Date.now() / 1_800_000) * 1_800_000 + 86_400_000 + ++seq * 1_800_000).toISOString();
const newPhone = () => `+23324${String(8000000 + ++seq).padStart(7, '0')}`;
const ALL_DAY = [{ start: '00:00', end: '24:00' }];

/** Booking types made so far, per organisation and confirmation rule (creates need B's too). */
const types = new Map<string, string>();

/** A booking type of the organisation's test mode, open every day all day with 1,000 places (made once per file). */
export async function bookingType(w: World, org: 'a' | 'b', requiresConfirmation = false): Promise<string> {
  const key = `${org}:${requiresConfirmation}`;
  if (!types.has(key)) {
    const made = await w.app
      .get(BookingTypesService)
      .save({ organisationId: (org === 'a' ? w.a : w.b).id, livemode: false }, null, {
        name: `Tenancy tour ${org}`,
        visit_type: 'meeting',
        site_id: org === 'a' ? w.aSite : w.bSite,
        host_ids: [org === 'a' ? w.aHost : w.bHost],
        duration_minutes: 30,
        capacity: 1000,
        requires_confirmation: requiresConfirmation,
        horizon_days: 366,
        weekly_hours: {
          mon: ALL_DAY,
          tue: ALL_DAY,
          wed: ALL_DAY,
          thu: ALL_DAY,
          fri: ALL_DAY,
          sat: ALL_DAY,
          sun: ALL_DAY,
        },
      });
    types.set(key, made.id);
  }
  return types.get(key)!;
}

const bookingBody = (typeId: string) => ({
  booking_type_id: typeId,
  start: nextSlot(),
  attendee: { name: 'Esi Tenancy', phone: newPhone() },
});

const clockBody = (w: World, org: 'a' | 'b') => ({
  person_id: org === 'a' ? w.aHost : w.bHost,
  site_id: org === 'a' ? w.aSite : w.bSite,
  direction: 'in',
  occurred_at: new Date().toISOString(),
  method: 'card',
});

const made = (param: string, value: string, read: string): Fixture => ({
  params: { [param]: value },
  read,
  item: { field: 'id', value },
});

export const BOOKING_BUILDERS: Record<string, (w: World, variant?: string) => Promise<Fixture>> = {
  btype_id: async (w) => {
    const id = await bookingType(w, 'a');
    await bookingType(w, 'b');
    return made('btype_id', id, `/v1/booking-types/${id}`);
  },
  booking_id: async (w, variant) => {
    const b = await expectStatus(
      w,
      w.aTest,
      'POST',
      '/v1/bookings',
      201,
      bookingBody(await bookingType(w, 'a', variant === 'pending')),
    );
    return made('booking_id', b.id, `/v1/bookings/${b.id}`);
  },
  attendance_event_id: async (w) => {
    const e = await expectStatus(w, w.aTest, 'POST', '/v1/attendance/events', 201, clockBody(w, 'a'));
    return made('attendance_event_id', e.id, `/v1/attendance/events/${e.id}`);
  },
};

export const BOOKING_OPERATIONS: Record<string, { variant?: string; body?: (w: World) => unknown }> = {
  'POST /bookings/{booking_id}/confirm': { variant: 'pending' },
  'POST /bookings/{booking_id}/decline': {
    variant: 'pending',
    body: () => ({ reason: 'Declined by a stranger' }),
  },
  'POST /bookings/{booking_id}/cancel': { body: () => ({ reason: 'Cancelled by a stranger' }) },
  'POST /bookings/{booking_id}/reschedule': { body: () => ({ start: nextSlot() }) },
  'POST /people/{person_id}/attendance-evidence': { body: () => ({ kind: 'face', consent: 'given' }) },
};

export const BOOKING_LIST_SOURCES: Record<string, (w: World) => Promise<Fixture['item']>> = {
  /** A shift of A's test mode (made as the console makes it). */
  'GET /shifts': async (w) => {
    const s = await w.app
      .get(AttendanceService)
      .saveShift({ organisationId: w.a.id, livemode: false }, null, {
        name: 'Tenancy shift',
        site_id: w.aSite,
        start_time: '09:00',
        end_time: '17:00',
        days_of_week: [1, 2, 3, 4, 5],
      });
    return { field: 'id', value: s.id };
  },
};

export const BOOKING_LIST_FILTERS: Record<string, (w: World) => string[]> = {
  'GET /bookings': () => ['?status=confirmed'],
  'GET /attendance/events': (w) => [`?site_id=${w.aSite}`, `?person_id=${w.aHost}`],
};

export const BOOKING_CREATES: Record<
  string,
  { body: (w: World, org: 'a' | 'b') => Json; read: (id: string) => string; foreign?: string[] }
> = {
  'POST /bookings': {
    body: (w, org) => {
      const id = types.get(`${org}:false`);
      if (!id)
        throw new Error('fixture: the booking types are made by the btype_id builder (path-id test) first');
      return bookingBody(id);
    },
    read: (id) => `/v1/bookings/${id}`,
    foreign: ['body.booking_type_id'],
  },
  'POST /attendance/events': {
    body: clockBody,
    read: (id) => `/v1/attendance/events/${id}`,
    foreign: ['body.person_id', 'body.site_id'],
  },
};

export const BOOKING_SINGLETONS: Record<string, { reason: string; check: (w: World) => Promise<string[]> }> =
  {
    'GET /attendance/summary': {
      reason: "counts over the people of the credential's organisation and mode",
      check: async (w) => {
        await w.app.get(AttendanceService).saveShift({ organisationId: w.a.id, livemode: false }, null, {
          name: 'Every day',
          site_id: w.aSite,
          start_time: '00:00',
          end_time: '23:59',
          grace_minutes: 240,
          days_of_week: [1, 2, 3, 4, 5, 6, 7],
          person_ids: [w.aHost],
        });
        await expectStatus(w, w.aTest, 'POST', '/v1/attendance/events', 201, clockBody(w, 'a'));
        const today = new Date().toISOString().slice(0, 10);
        const problems: string[] = [];
        for (const [who, key, sees] of [
          ["A's test key", w.aTest, true],
          ["B's test key", w.bTest, false],
          ["A's live key", w.aLive, false],
        ] as const) {
          const s = await expectStatus(
            w,
            key,
            'GET',
            `/v1/attendance/summary?from=${today}&to=${today}`,
            200,
          );
          const day = (s.data as Json[])[0];
          const counted = day.present + day.late + day.absent;
          if (counted > 0 !== sees)
            problems.push(`${who} ${sees ? 'does not count' : 'counts'} A's test-mode staff`);
        }
        return problems;
      },
    },
  };
