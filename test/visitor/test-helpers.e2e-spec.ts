import { AttendanceService } from '../../src/visitor/attendance/attendance.service';
import { SandboxReset } from '../../src/visitor/test-helpers/sandbox-reset.service';
import { runCli } from '../support/cli';
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

  it('ages an event past retention: it is no longer fetched or listed; a live event is refused', async () => {
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

    // A live event is refused and stays fetchable and listed.
    const livePerson = (
      await call(o.t.app, 'POST', '/v1/people', {
        key: live,
        body: { name: 'Live Aged', email: 'live.aged@host.test' },
      })
    ).json();
    const liveEvent = (await get('/v1/events?limit=100', live))
      .json()
      .data.find((e: { data: { object: { id: string } } }) => e.data.object.id === livePerson.id);
    expect(liveEvent).toMatchObject({ type: 'person.created', livemode: true });
    const refused = await post(`/v1/test-helpers/events/${liveEvent.id}/age`, live);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
    expect(refused.json().detail).toContain('test mode only');
    expect((await get(`/v1/events/${liveEvent.id}`, live)).statusCode).toBe(200);
    expect((await get('/v1/events?limit=100', live)).json().data.map((e: { id: string }) => e.id)).toContain(
      liveEvent.id,
    );
  });

  /** Every visitor table with a mode: what a sandbox reset deletes, and what it keeps. */
  const DELETED = [
    'attendance_event',
    'booking',
    'booking_slot',
    'delivery',
    'event',
    'file',
    'message',
    'rollcall',
    'visit',
    'visit_pass',
    'visitor',
    'watchlist_match',
    'webhook_delivery',
  ];
  const KEPT = [
    'api_key',
    'attendance_consent',
    'attendance_leave',
    'audit_event',
    'booking_type',
    'form',
    'gate',
    'person',
    'public_holiday',
    'shift',
    'shift_assignment',
    'site',
    'visit_type',
    'watchlist_entry',
    'watchlist_name',
    'webhook_endpoint',
  ];
  const counts = async (livemode: boolean) => {
    const out: Record<string, number> = {};
    for (const table of [...DELETED, ...KEPT, 'idempotency_key'])
      out[table] = Number(
        (
          await o.pg.query(
            `SELECT count(*) AS n FROM visitor.${table} WHERE organisation_id = $1 AND livemode = $2`,
            [o.org.id, livemode],
          )
        ).rows[0].n,
      );
    return out;
  };

  it('every visitor table with a mode is either deleted or kept by a sandbox reset', async () => {
    const { rows } = await o.pg.query<{ table_name: string }>(
      `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = 'visitor' AND c.column_name = 'livemode' AND t.table_type = 'BASE TABLE'`,
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual([...DELETED, ...KEPT, 'idempotency_key'].sort());
    expect(o.t.app.get(SandboxReset).kinds()).toEqual([
      'watchlist',
      'files',
      'messages',
      'rollcalls',
      'deliveries',
      'attendance',
      'bookings',
      'booking_types',
      'visits',
      'visitors',
      'events',
      'idempotency',
    ]);
  });

  it('sandbox reset deletes the test-mode activity, keeps configuration and live data, and is audited', async () => {
    await o.visit({ visitor: { name: 'Kofi Reset', phone: phone() } });
    const liveSite = o.org.sites.find((s) => s.livemode)!.id;
    const liveHost = (
      await call(o.t.app, 'POST', '/v1/people', {
        key: live,
        body: { name: 'Live Two', email: 'l2@host.test' },
      })
    ).json().id;
    const liveVisit = (
      await call(o.t.app, 'POST', '/v1/visits', {
        key: live,
        body: {
          site_id: liveSite,
          host_id: liveHost,
          type: 'meeting',
          visitor: { name: 'Esi', phone: phone() },
        },
      })
    ).json();
    const liveBefore = await counts(true);
    const before = await counts(false);
    expect(before.visit).toBeGreaterThan(0);
    expect(before.event).toBeGreaterThan(0);

    const refused = await post('/v1/test-helpers/sandbox/reset', live);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'forbidden']);
    // (a refused POST's answer is stored for its Idempotency-Key like any other: one more row there)
    const unchanged = async () => ({ ...(await counts(true)), idempotency_key: 0 });
    expect(await unchanged()).toEqual({ ...liveBefore, idempotency_key: 0 });

    const res = await post('/v1/test-helpers/sandbox/reset');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ object: 'sandbox_reset', livemode: false });
    expect(res.json().deleted.visits).toBe(before.visit);
    const after = await counts(false);
    for (const table of DELETED) expect({ table, rows: after[table] }).toEqual({ table, rows: 0 });
    for (const table of KEPT.filter((t) => t !== 'audit_event'))
      expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });
    expect(after.audit_event).toBe(before.audit_event + 1);
    // only the reset's own request (still running when the rest went) keeps its stored response
    expect(after.idempotency_key).toBe(1);
    expect(await unchanged()).toEqual({ ...liveBefore, idempotency_key: 0 });
    expect((await get(`/v1/visits/${liveVisit.id}`, live)).json().status).toBe('expected');
    expect((await get('/v1/visits')).json().data).toEqual([]);
    expect((await get('/v1/events')).json().data).toEqual([]);
    expect((await get('/v1/people')).json().data.length).toBeGreaterThan(0);
    const audit = (await get('/v1/audit-events?limit=100')).json().data;
    expect(audit.find((e: { action: string }) => e.action === 'sandbox.reset')).toMatchObject({
      actor: { type: 'api_key' },
    });
    // the sandbox works again at once
    expect((await o.visit({ visitor: { name: 'After Reset', phone: phone() } })).statusCode).toBe(201);
  });

  it('gatehouse sandbox reset does the same for operators', async () => {
    await o.visit({ visitor: { name: 'Cli Reset', phone: phone() } });
    const out = runCli(o.t.db.url, 'sandbox', 'reset', '--org', o.org.id);
    expect(out).toMatchObject({ object: 'sandbox_reset', livemode: false });
    expect(out.deleted.visits).toBeGreaterThan(0);
    expect((await get('/v1/visits')).json().data).toEqual([]);
    const audit = (await get('/v1/audit-events?limit=100')).json().data;
    expect(audit.find((e: { actor: { type: string } }) => e.actor.type === 'operator')).toMatchObject({
      action: 'sandbox.reset',
    });
  });
});
