import { AttendanceService } from '../../src/visitor/attendance/attendance.service';
import { saveBookingType, postBooking } from '../support/booking-fixtures';
import { controlClock } from '../support/clock';
import { call } from '../support/platform-fixtures';
import { bootVisitorOrg, VisitorOrg } from '../support/visitor-org';

/**
 * /v1/test-helpers (issue 33): what time would fire later, now, in test mode only. Every answer is checked against
 * the served /v1 document by `call`.
 */
describe('test helpers', () => {
  let o: VisitorOrg;
  let live: string;
  let now: number | null = null;
  let phones = 0;
  const phone = () => `+23324${String(7000000 + ++phones).padStart(7, '0')}`;
  const post = (url: string, key = o.key, body: unknown = {}) => call(o.t.app, 'POST', url, { key, body });
  const get = (url: string, key = o.key) => call(o.t.app, 'GET', url, { key });
  const typesAbout = async (id: string, key = o.key) =>
    (await get(`/v1/events?limit=100`, key))
      .json()
      .data.filter((e: { data: { object: { id: string } } }) => e.data.object.id === id)
      .map((e: { type: string }) => e.type);

  beforeAll(async () => {
    o = await bootVisitorOrg();
    live = await o.org.key({ mode: 'live' });
    controlClock(o.t.app, () => now);
  });
  afterAll(() => o?.close());
  beforeEach(() => {
    now = null;
  });

  it('marks an expected visit as a no-show now, once; live mode is refused and changes nothing', async () => {
    const visit = (await o.visit({ visitor: { name: 'Kofi Boateng', phone: phone() } })).json();
    expect(visit.status).toBe('expected');
    const res = await post(`/v1/test-helpers/visits/${visit.id}/no-show`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: visit.id, status: 'no_show' });
    expect((await get(`/v1/visits/${visit.id}`)).json().status).toBe('no_show');
    expect(await typesAbout(visit.id)).toContain('visit.no_show');
    const again = await post(`/v1/test-helpers/visits/${visit.id}/no-show`);
    expect([again.statusCode, again.json().code]).toEqual([409, 'invalid_state']);

    const liveSite = o.org.sites.find((s) => s.livemode)!.id;
    const host = (
      await call(o.t.app, 'POST', '/v1/people', {
        key: live,
        body: { name: 'Live Host', email: 'lh@host.test' },
      })
    ).json().id;
    const liveVisit = (
      await call(o.t.app, 'POST', '/v1/visits', {
        key: live,
        body: { site_id: liveSite, host_id: host, type: 'meeting', visitor: { name: 'Esi', phone: phone() } },
      })
    ).json();
    const refused = await post(`/v1/test-helpers/visits/${liveVisit.id}/no-show`, live);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
    expect(refused.json().detail).toContain('test mode only');
    expect((await get(`/v1/visits/${liveVisit.id}`, live)).json().status).toBe('expected');
  });

  it('expires a pending booking now: booking.expired, the slot is bookable again', async () => {
    const tenant = { organisationId: o.org.id, livemode: false };
    const tour = await saveBookingType(
      o.t.app,
      tenant,
      { site: o.site, host: o.host },
      { requires_confirmation: true, confirmation_window_hours: 6 },
    );
    const d = new Date();
    const start = new Date(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 3, 9),
    ).toISOString();
    const b = (await postBooking(o.t.app, o.key, phone(), tour.id, start)).json();
    expect(b.status).toBe('pending');
    expect((await postBooking(o.t.app, o.key, phone(), tour.id, start)).statusCode).toBe(409);
    const res = await post(`/v1/test-helpers/bookings/${b.id}/expire`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: b.id, status: 'expired', visit_id: null });
    expect(await typesAbout(b.id)).toEqual(expect.arrayContaining(['booking.created', 'booking.expired']));
    expect((await postBooking(o.t.app, o.key, phone(), tour.id, start)).statusCode).toBe(201);
    const again = await post(`/v1/test-helpers/bookings/${b.id}/expire`);
    expect([again.statusCode, again.json().code]).toEqual([409, 'invalid_state']);
    const refused = await post(`/v1/test-helpers/bookings/${b.id}/expire`, live);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
  });

  it('records a late clock-in against the shift: attendance.clocked_in and attendance.late', async () => {
    now = Date.parse('2026-12-01T13:00:00Z'); // a Tuesday; the site is in Africa/Accra (UTC)
    const tenant = { organisationId: o.org.id, livemode: false };
    const person = (await post('/v1/people', o.key, { name: 'Yaw Late', email: 'yaw@staff.test' })).json().id;
    const loner = (await post('/v1/people', o.key, { name: 'No Shift', email: 'ns@staff.test' })).json().id;
    await o.t.app.get(AttendanceService).saveShift(tenant, null, {
      name: 'Day',
      site_id: o.site,
      start_time: '09:00',
      end_time: '17:00',
      grace_minutes: 10,
      days_of_week: [1, 2, 3, 4, 5],
      person_ids: [person],
    });
    const res = await post('/v1/test-helpers/attendance/late-clock-in', o.key, { person_id: person });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      person_id: person,
      site_id: o.site,
      direction: 'in',
      occurred_at: '2026-12-01T09:11:00.000Z',
      late_minutes: 11,
    });
    expect(await typesAbout(res.json().id)).toEqual(
      expect.arrayContaining(['attendance.clocked_in', 'attendance.late']),
    );
    const again = await post('/v1/test-helpers/attendance/late-clock-in', o.key, { person_id: person });
    expect([again.statusCode, again.json().code]).toEqual([409, 'invalid_state']);
    const noShift = await post('/v1/test-helpers/attendance/late-clock-in', o.key, { person_id: loner });
    expect([noShift.statusCode, noShift.json().code]).toEqual([422, 'validation_failed']);
    expect(noShift.json().errors[0]).toMatchObject({ location: 'body.person_id' });
    const refused = await post('/v1/test-helpers/attendance/late-clock-in', live, { person_id: person });
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
  });

  it('ages an event past retention: it is no longer fetched or listed', async () => {
    const visit = (await o.visit({ visitor: { name: 'Ama Aged', phone: phone() } })).json();
    const events = (await get('/v1/events?limit=100')).json().data;
    const event = events.find((e: { data: { object: { id: string } } }) => e.data.object.id === visit.id);
    expect((await get(`/v1/events/${event.id}`)).statusCode).toBe(200);
    const res = await post(`/v1/test-helpers/events/${event.id}/age`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: event.id, type: event.type });
    expect((await get(`/v1/events/${event.id}`)).json().code).toBe('not_found');
    expect((await get('/v1/events?limit=100')).json().data.map((e: { id: string }) => e.id)).not.toContain(
      event.id,
    );
    expect((await post(`/v1/test-helpers/events/${event.id}/age`)).json().code).toBe('not_found');
  });
});
