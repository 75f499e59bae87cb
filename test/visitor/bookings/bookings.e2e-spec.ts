import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import { controlClock } from '../../support/clock';
import { DAY, postBooking, saveBookingType } from '../../support/booking-fixtures';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { PeriodicScheduler } from '../../../src/common/periodic';
import {
  BOOKING_STATUSES,
  BOOKING_TRANSITIONS,
  BookingStatus,
} from '../../../src/visitor/bookings/booking-state-machine';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let phoneSeq = 0;
const newPhone = () => `+23324${String(5000000 + ++phoneSeq).padStart(7, '0')}`;

describe('bookings over HTTP', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let org: TestOrg;
  let key: string;
  let site: string;
  let host: string;
  /** The application's clock: the wall clock unless a test sets `now`. */
  let now: number | null = null;

  const tenant = () => ({ organisationId: org.id, livemode: false });
  const makeType = (over: Record<string, unknown> = {}) =>
    saveBookingType(t.app, tenant(), { site, host }, over);
  const book = (typeId: string, start: string, over: Record<string, unknown> = {}, k = key) =>
    postBooking(t.app, k, newPhone(), typeId, start, over);
  const valid = <T extends { statusCode: number }>(res: T, method: string, url: string): T => {
    contract.expectValid(res as never, method, url);
    return res;
  };
  const eventsOf = async (id: string) =>
    (
      await pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb #>> '{data,object,id}' = $1 ORDER BY created_at, id`,
        [id],
      )
    ).rows.map((r) => ({ type: r.type as string, object: JSON.parse(r.body).data.object }));
  /** The first slot of tomorrow (09:00 at the site, Africa/Accra = UTC), `days` later. */
  const slot = (days = 1, hour = 9) => {
    const d = new Date(now ?? Date.now());
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days, hour)).toISOString();
  };

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    controlClock(t.app, () => now);
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });
  beforeEach(async () => {
    now = null;
    org = await createOrg(t.app, 'pro');
    key = await org.key();
    site = org.sites.find((s) => !s.livemode)!.id;
    host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
    ).json().id;
  });

  it('lists a booking type, and shows only published ones to a publishable key', async () => {
    const priv = await makeType();
    const pub = await makeType({ name: 'Open day', public: true });
    const list = valid(await call(t.app, 'GET', '/v1/booking-types', { key }), 'GET', '/v1/booking-types');
    expect(list.json().data.map((x: Json) => x.id)).toEqual([priv.id, pub.id]);
    const got = valid(
      await call(t.app, 'GET', `/v1/booking-types/${priv.id}`, { key }),
      'GET',
      `/v1/booking-types/${priv.id}`,
    );
    expect(got.json()).toMatchObject({
      visit_type: 'meeting',
      requires_confirmation: false,
      confirmation_window_hours: 24,
      public_form: null,
    });
    const pk = await org.key({ kind: 'publishable', scopes: ['bookings:read', 'bookings:write'] });
    const seen = await call(t.app, 'GET', '/v1/booking-types', { key: pk });
    expect(seen.json().data.map((x: Json) => x.id)).toEqual([pub.id]);
    expect(seen.json().data[0].public_form).toEqual({ version: 0, schema: expect.any(Object) });
    // reading one type is not a publishable-key call (the list gives them each public type): forbidden
    expect((await call(t.app, 'GET', `/v1/booking-types/${priv.id}`, { key: pk })).statusCode).toBe(403);
    expect(
      (await call(t.app, 'GET', `/v1/booking-types/${priv.id}/availability`, { key: pk })).statusCode,
    ).toBe(404);
  });

  it('availability keeps 09:00 local across the spring DST change, skips the missing hour, offers the repeated hour once', async () => {
    await pg.query(`UPDATE visitor.site SET time_zone = 'Europe/London' WHERE id = $1`, [site]);
    now = Date.parse('2027-03-20T12:00:00Z');
    const tour = await makeType({ weekly_hours: { sat: DAY, sun: DAY, mon: DAY } });
    const url = `/v1/booking-types/${tour.id}/availability?from=2027-03-27&to=2027-03-29`;
    const res = valid(await call(t.app, 'GET', url, { key }), 'GET', url);
    const body = res.json();
    expect(body.time_zone).toBe('Europe/London');
    const nine = body.data.filter((s: Json) => s.local_start.includes('T09:00'));
    expect(nine.map((s: Json) => [s.local_start, s.start])).toEqual([
      ['2027-03-27T09:00:00.000+00:00', '2027-03-27T09:00:00.000Z'],
      ['2027-03-28T09:00:00.000+01:00', '2027-03-28T08:00:00.000Z'],
      ['2027-03-29T09:00:00.000+01:00', '2027-03-29T08:00:00.000Z'],
    ]);
    expect(body.data).toHaveLength(9);
    expect(body.data[0]).toEqual({
      start: '2027-03-27T09:00:00.000Z',
      end: '2027-03-27T10:00:00.000Z',
      local_start: '2027-03-27T09:00:00.000+00:00',
      remaining: 1,
    });

    // The night of the change: 00:30–02:30 in half hours. 01:00 and 01:30 do not exist on 28 March.
    const night = [{ start: '00:30', end: '02:30' }];
    const n = await makeType({ duration_minutes: 30, weekly_hours: { sun: night } });
    const spring = (
      await call(t.app, 'GET', `/v1/booking-types/${n.id}/availability?from=2027-03-28&to=2027-03-28`, {
        key,
      })
    ).json();
    expect(spring.data.map((s: Json) => s.local_start)).toEqual([
      '2027-03-28T00:30:00.000+00:00',
      '2027-03-28T02:00:00.000+01:00',
    ]);
    // Autumn: 01:00–02:00 happens twice on 31 October; each wall-clock slot is offered once, at its first occurrence.
    now = Date.parse('2027-10-20T12:00:00Z');
    const autumn = (
      await call(t.app, 'GET', `/v1/booking-types/${n.id}/availability?from=2027-10-31&to=2027-10-31`, {
        key,
      })
    ).json();
    expect(autumn.data.map((s: Json) => [s.local_start, s.start])).toEqual([
      ['2027-10-31T00:30:00.000+01:00', '2027-10-30T23:30:00.000Z'],
      ['2027-10-31T01:00:00.000+01:00', '2027-10-31T00:00:00.000Z'],
      ['2027-10-31T01:30:00.000+01:00', '2027-10-31T00:30:00.000Z'],
      ['2027-10-31T02:00:00.000+00:00', '2027-10-31T02:00:00.000Z'],
    ]);
    // A booking at 09:00 local after the change lands on 08:00Z.
    now = Date.parse('2027-03-20T12:00:00Z');
    const b = await book(tour.id, '2027-03-28T08:00:00.000Z');
    expect(b.statusCode).toBe(201);
    expect((await book(tour.id, '2027-03-28T08:30:00.000Z')).json().errors[0].location).toBe('body.start');
  });

  it('closed dates have no slots', async () => {
    now = Date.parse('2027-03-20T12:00:00Z');
    const tour = await makeType({ closed_dates: ['2027-03-29'] });
    expect(
      (await call(t.app, 'GET', `/v1/booking-types/${tour.id}`, { key })).json().availability.closed_dates,
    ).toEqual(['2027-03-29']);
    const url = `/v1/booking-types/${tour.id}/availability?from=2027-03-28&to=2027-03-30`;
    const days = (await call(t.app, 'GET', url, { key })).json().data.map((s: Json) => s.start.slice(0, 10));
    expect([...new Set(days)]).toEqual(['2027-03-28', '2027-03-30']);
    expect((await book(tour.id, '2027-03-29T08:00:00.000Z')).json().errors[0].location).toBe('body.start');
  });

  it('refuses an availability range over 31 days, naming the parameter', async () => {
    const tour = await makeType();
    const res = await call(
      t.app,
      'GET',
      `/v1/booking-types/${tour.id}/availability?from=2027-01-01&to=2027-02-01`,
      { key },
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ location: 'query.to', message: expect.stringContaining('31') }]);
  });

  it('20 concurrent bookings of a slot of capacity 1: exactly one wins, 19 conflict, the slot is gone', async () => {
    const tour = await makeType();
    const start = slot(2);
    const results = await Promise.all(Array.from({ length: 20 }, () => book(tour.id, start)));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, ...Array(19).fill(409)]);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.json().code).toBe('conflict');
      valid(r, 'POST', '/v1/bookings');
    }
    const stored = await pg.query(`SELECT status FROM visitor.booking WHERE booking_type_id = $1`, [tour.id]);
    expect(stored.rows).toEqual([{ status: 'confirmed' }]);
    // Each loser's visit went out with its take of the slot, and rolled back with it: the winner's visit and pass
    // only, and no visit of a booking that does not exist.
    const kept = await pg.query(
      `SELECT (SELECT count(*)::int FROM visitor.visit WHERE booking_id = b.id) AS visits,
              (SELECT count(*)::int FROM visitor.visit_pass WHERE visit_id = b.visit_id) AS passes
         FROM visitor.booking b WHERE b.booking_type_id = $1`,
      [tour.id],
    );
    expect(kept.rows).toEqual([{ visits: 1, passes: 1 }]);
    const orphans = await pg.query(
      `SELECT v.id FROM visitor.visit v
        WHERE v.booking_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM visitor.booking b WHERE b.id = v.booking_id)`,
    );
    expect(orphans.rows).toEqual([]);
    const free = (
      await call(
        t.app,
        'GET',
        `/v1/booking-types/${tour.id}/availability?from=${start.slice(0, 10)}&to=${start.slice(0, 10)}`,
        { key },
      )
    ).json();
    expect(free.data.map((s: Json) => s.start)).not.toContain(start);
  });

  it('a booking of a type without confirmation is confirmed at once with a linked visit; events created then confirmed', async () => {
    const tour = await makeType();
    const res = valid(await book(tour.id, slot()), 'POST', '/v1/bookings');
    expect(res.statusCode).toBe(201);
    const b = res.json();
    expect(b).toMatchObject({ status: 'confirmed', confirm_by: null, confirmed_at: expect.any(String) });
    expect(b.visit_id).toMatch(/^visit_/);
    const visit = (await call(t.app, 'GET', `/v1/visits/${b.visit_id}`, { key })).json();
    expect(visit).toMatchObject({
      booking_id: b.id,
      source: 'booking',
      host_id: host,
      expected_at: b.start,
      expected_until: b.end,
      status: 'expected',
    });
    expect((await eventsOf(b.id)).map((e) => [e.type, e.object.status])).toEqual([
      ['booking.created', 'confirmed'],
      ['booking.confirmed', 'confirmed'],
    ]);
    const got = valid(
      await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key }),
      'GET',
      `/v1/bookings/${b.id}`,
    );
    expect(got.json()).toEqual(b);
  });

  it('pending: slot held, confirm_by = now + window, no visit; confirm links a visit', async () => {
    now = Date.parse('2026-12-01T10:00:00Z');
    const tour = await makeType({ requires_confirmation: true, confirmation_window_hours: 6 });
    const start = slot(3);
    const b = (await book(tour.id, start)).json();
    expect(b).toMatchObject({
      status: 'pending',
      visit_id: null,
      confirm_by: '2026-12-01T16:00:00.000Z',
      confirmed_at: null,
    });
    expect((await eventsOf(b.id)).map((e) => [e.type, e.object.status])).toEqual([
      ['booking.created', 'pending'],
    ]);
    expect((await book(tour.id, start)).statusCode).toBe(409);
    const c = valid(
      await call(t.app, 'POST', `/v1/bookings/${b.id}/confirm`, { key, body: {} }),
      'POST',
      `/v1/bookings/${b.id}/confirm`,
    );
    expect(c.json()).toMatchObject({
      status: 'confirmed',
      confirmed_at: '2026-12-01T10:00:00.000Z',
      visit_id: expect.stringMatching(/^visit_/),
    });
    expect((await eventsOf(b.id)).map((e) => e.type)).toEqual(['booking.created', 'booking.confirmed']);
  });

  it('pending → expired by the job with an injected clock; the slot is bookable again', async () => {
    now = Date.parse('2026-12-01T10:00:00Z');
    const tour = await makeType({ requires_confirmation: true, confirmation_window_hours: 2 });
    const start = slot(3);
    const b = (await book(tour.id, start)).json();
    now = Date.parse('2026-12-01T11:59:59Z');
    await t.app.get(PeriodicScheduler).run('bookings.expire');
    expect((await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key })).json().status).toBe('pending');
    expect((await book(tour.id, start)).statusCode).toBe(409);
    now = Date.parse('2026-12-01T12:00:00Z');
    expect(await t.app.get(PeriodicScheduler).run('bookings.expire')).toBeGreaterThanOrEqual(1);
    const expired = (await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key })).json();
    expect(expired).toMatchObject({
      status: 'expired',
      expired_at: '2026-12-01T12:00:00.000Z',
      visit_id: null,
    });
    expect((await eventsOf(b.id)).map((e) => e.type)).toEqual(['booking.created', 'booking.expired']);
    expect((await book(tour.id, start)).statusCode).toBe(201);
    // a second run (another worker) finds nothing more to expire
    expect(await t.app.get(PeriodicScheduler).run('bookings.expire')).toBe(0);
    expect((await call(t.app, 'POST', `/v1/bookings/${b.id}/confirm`, { key, body: {} })).json().code).toBe(
      'invalid_state',
    );
  });

  it('decline: the reason reaches the attendee only when shared', async () => {
    const tour = await makeType({ requires_confirmation: true });
    for (const share of [false, true]) {
      const b = (await book(tour.id, slot(share ? 2 : 3))).json();
      const res = valid(
        await call(t.app, 'POST', `/v1/bookings/${b.id}/decline`, {
          key,
          body: { reason: 'Fully booked', share_reason_with_attendee: share },
        }),
        'POST',
        `/v1/bookings/${b.id}/decline`,
      );
      expect(res.json()).toMatchObject({
        status: 'declined',
        declined_at: expect.any(String),
        decline_reason: 'Fully booked',
        share_reason_with_attendee: share,
        visit_id: null,
      });
      expect((await eventsOf(b.id)).map((e) => e.type)).toEqual(['booking.created', 'booking.declined']);
      const msgs = await pg.query(`SELECT body FROM visitor.message WHERE related_id = $1`, [b.id]);
      expect(msgs.rows).toHaveLength(1);
      expect(msgs.rows[0].body.includes('Fully booked')).toBe(share);
      expect(msgs.rows[0].body).toContain('declined');
    }
  });

  it('cancel and reschedule confirmed bookings only; reschedule re-checks capacity and moves the visit; cancel cancels it', async () => {
    const tour = await makeType();
    const a = (await book(tour.id, slot(2, 9))).json();
    const taken = (await book(tour.id, slot(2, 10))).json();
    const clash = await call(t.app, 'POST', `/v1/bookings/${a.id}/reschedule`, {
      key,
      body: { start: taken.start },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().code).toBe('conflict');
    const moved = valid(
      await call(t.app, 'POST', `/v1/bookings/${a.id}/reschedule`, { key, body: { start: slot(2, 11) } }),
      'POST',
      `/v1/bookings/${a.id}/reschedule`,
    );
    expect(moved.json()).toMatchObject({
      status: 'confirmed',
      start: slot(2, 11),
      rescheduled_at: expect.any(String),
    });
    expect((await call(t.app, 'GET', `/v1/visits/${a.visit_id}`, { key })).json().expected_at).toBe(
      slot(2, 11),
    );
    expect((await book(tour.id, slot(2, 9))).statusCode).toBe(201); // the old slot is free again
    const cancelled = valid(
      await call(t.app, 'POST', `/v1/bookings/${a.id}/cancel`, { key, body: { reason: 'Plans changed' } }),
      'POST',
      `/v1/bookings/${a.id}/cancel`,
    );
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', cancel_reason: 'Plans changed' });
    expect((await call(t.app, 'GET', `/v1/visits/${a.visit_id}`, { key })).json().status).toBe('cancelled');
    expect((await eventsOf(a.id)).map((e) => e.type)).toEqual([
      'booking.created',
      'booking.confirmed',
      'booking.rescheduled',
      'booking.cancelled',
    ]);
    expect((await book(tour.id, slot(2, 11))).statusCode).toBe(201);
  });

  it('every transition the table does not list answers invalid_state and changes nothing', async () => {
    const tour = await makeType({ requires_confirmation: true, capacity: 100 });
    let hour = 0;
    const inStatus = async (status: BookingStatus): Promise<Json> => {
      const b = (await book(tour.id, slot(4 + Math.floor(hour / 3), 9 + (hour++ % 3)))).json();
      const go = (path: string, body: unknown = {}) =>
        call(t.app, 'POST', `/v1/bookings/${b.id}/${path}`, { key, body });
      if (status === 'confirmed' || status === 'cancelled') await go('confirm');
      if (status === 'cancelled') await go('cancel');
      if (status === 'declined') await go('decline');
      if (status === 'expired')
        await pg.query(`UPDATE visitor.booking SET status = 'expired' WHERE id = $1`, [b.id]);
      return (await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key })).json();
    };
    const bodies: Record<string, unknown> = {
      confirm: {},
      decline: {},
      cancel: {},
      reschedule: { start: slot(10, 9) },
    };
    const refused: string[] = [];
    for (const [action, rule] of Object.entries(BOOKING_TRANSITIONS)) {
      if (action === 'expire') continue;
      for (const status of BOOKING_STATUSES.filter((s) => !rule.from.includes(s))) {
        const b = await inStatus(status);
        expect(b.status).toBe(status);
        const res = await call(t.app, 'POST', `/v1/bookings/${b.id}/${action}`, {
          key,
          body: bodies[action],
        });
        expect([action, status, res.statusCode, res.json().code]).toEqual([
          action,
          status,
          409,
          'invalid_state',
        ]);
        valid(res, 'POST', `/v1/bookings/${b.id}/${action}`);
        expect((await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key })).json()).toEqual(b);
        refused.push(`${action} from ${status}`);
      }
    }
    expect(refused).toHaveLength(16); // 4 actions, each refused from the 4 statuses its rule does not list
  });

  it('publishable keys: a private type is forbidden; answers outside public_form are validation_failed', async () => {
    await t.app.get(FormsService).publish(tenant(), 'visit', {
      type: 'object',
      properties: {
        topic: { type: 'string', 'x-svc-public': true },
        badge_colour: { type: 'string' },
      },
      'x-svc-order': ['topic', 'badge_colour'],
    } as never);
    const pk = await org.key({ kind: 'publishable', scopes: ['bookings:read', 'bookings:write'] });
    const priv = await makeType();
    const pub = await makeType({ public: true });
    const forbidden = await book(priv.id, slot(), {}, pk);
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, 'forbidden']);
    const outside = await book(pub.id, slot(), { custom_fields: { topic: 'Tour', badge_colour: 'red' } }, pk);
    expect(outside.statusCode).toBe(422);
    expect(outside.json().errors).toEqual([
      { location: 'body.custom_fields.badge_colour', message: expect.any(String) },
    ]);
    const ok = valid(
      await book(pub.id, slot(), { custom_fields: { topic: 'Tour' } }, pk),
      'POST',
      '/v1/bookings',
    );
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ source: 'publishable_key', custom_fields: { topic: 'Tour' } });
    expect(
      (await call(t.app, 'GET', '/v1/booking-types', { key: pk })).json().data[0].public_form.schema
        .properties,
    ).toEqual({
      topic: expect.any(Object),
    });
    expect((await call(t.app, 'GET', '/v1/bookings', { key: pk })).statusCode).toBe(403);
  });

  it("erasing the attendee's visitor record erases their bookings, the events carrying them and the decline message", async () => {
    const tour = await makeType({ requires_confirmation: true, capacity: 5 });
    const phone = newPhone();
    const attendee = { name: 'Efua Erase', phone, email: 'efua@erase.test' };
    const declined = (await book(tour.id, slot(2), { attendee, custom_fields: {} })).json();
    await call(t.app, 'POST', `/v1/bookings/${declined.id}/decline`, {
      key,
      body: { reason: 'Private reason', share_reason_with_attendee: true },
    });
    const kept = (await book(tour.id, slot(3), { attendee })).json();
    const confirmed = (
      await call(t.app, 'POST', `/v1/bookings/${kept.id}/confirm`, { key, body: {} })
    ).json();
    const other = (await book(tour.id, slot(3))).json();
    const visitor = (await call(t.app, 'GET', `/v1/visits/${confirmed.visit_id}`, { key })).json().visitor.id;
    // A cancellation's reason is free text about the attendee: it goes with the rest.
    await call(t.app, 'POST', `/v1/bookings/${kept.id}/cancel`, { key, body: { reason: 'Efua is unwell' } });
    expect((await call(t.app, 'DELETE', `/v1/visitors/${visitor}`, { key })).statusCode).toBe(204);
    for (const id of [declined.id, kept.id]) {
      const b = (await call(t.app, 'GET', `/v1/bookings/${id}`, { key })).json();
      expect(b.attendee).toEqual({ name: null, phone: null, email: null, company: null });
      expect(b.decline_reason).toBeNull();
      expect(b.cancel_reason).toBeNull();
      const text = JSON.stringify(await eventsOf(id));
      expect(text).not.toContain(phone);
      expect(text).not.toContain('Efua');
    }
    const stored = await pg.query(
      `SELECT response_body FROM visitor.idempotency_key WHERE organisation_id = $1`,
      [org.id],
    );
    expect(JSON.stringify(stored.rows)).not.toContain(phone);
    expect(JSON.stringify(stored.rows)).toContain('Abena Attendee'); // another attendee's booking is kept
    const msgs = await pg.query(`SELECT body, recipient FROM visitor.message WHERE related_id = $1`, [
      declined.id,
    ]);
    expect(JSON.stringify(msgs.rows)).not.toContain('Private reason');
    expect((await call(t.app, 'GET', `/v1/bookings/${other.id}`, { key })).json().attendee.name).toBe(
      'Abena Attendee',
    );
  });

  it('lists bookings with filters', async () => {
    const tour = await makeType({ capacity: 5 });
    const other = await makeType({ requires_confirmation: true });
    const a = (await book(tour.id, slot(2))).json();
    const p = (await book(other.id, slot(5))).json();
    const ids = async (q: string) =>
      valid(await call(t.app, 'GET', `/v1/bookings${q}`, { key }), 'GET', `/v1/bookings${q}`)
        .json()
        .data.map((x: Json) => x.id);
    expect(await ids('')).toEqual([a.id, p.id]);
    expect(await ids(`?booking_type_id=${other.id}`)).toEqual([p.id]);
    expect(await ids('?status=confirmed')).toEqual([a.id]);
    expect(await ids(`?start_from=${encodeURIComponent(slot(3))}`)).toEqual([p.id]);
    expect(await ids(`?start_to=${encodeURIComponent(slot(3))}`)).toEqual([a.id]);
  });
});
