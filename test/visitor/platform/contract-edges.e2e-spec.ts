import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call, TestOrg } from '../../support/platform-fixtures';
import { controlClock } from '../../support/clock';
import { until } from '../../support/until';
import { postBooking, saveBookingType } from '../../support/booking-fixtures';
import { OrgWithHost, orgWithHost } from '../../support/visitor-org';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let phoneSeq = 0;
const newPhone = () => `+23324${String(6000000 + ++phoneSeq).padStart(7, '0')}`;
/** The application's clock in these tests: Monday 7 January 2030, 05:00 UTC. */
const NOW = Date.parse('2030-01-07T05:00:00Z');
const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;

/** Issue "Hardening, third round", item 11: contract edges. */
describe('contract edges (hardening round 3, item 11)', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let org: TestOrg;
  let key: string;
  let site: string;
  let host: string;

  const tenant = () => ({ organisationId: org.id, livemode: false });
  const makeType = (over: Record<string, unknown> = {}) =>
    saveBookingType(t.app, tenant(), { site, host }, { horizon_days: 30, ...over });
  const book = (typeId: string, start: string, over: Record<string, unknown> = {}, k = key) =>
    postBooking(t.app, k, newPhone(), typeId, start, over);
  let visit: (visitor: Record<string, unknown>) => ReturnType<OrgWithHost['visit']>;
  const count = async (sql: string) =>
    ((await pg.query(sql.replace('$org', `'${org.id}'`))).rows[0] as { n: number }).n;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    controlClock(t.app, () => NOW);
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });
  beforeEach(async () => {
    const o = await orgWithHost(t.app);
    ({ org, key, site, host } = o);
    visit = (visitor) => o.visit({ visitor: { name: 'Kofi Boateng', phone: newPhone(), ...visitor } });
  });

  it('a blank name is refused for visitor.name, attendee.name and every other name field', async () => {
    const visits = `SELECT count(*)::int AS n FROM visitor.visit WHERE organisation_id = $org`;
    const before = await count(visits);
    for (const blank of ['   ', '\t\n', '\u00a0\u200b']) {
      const res = await visit({ name: blank });
      expect([res.statusCode, res.json().code]).toEqual([422, 'validation_failed']);
      expect(res.json().errors).toEqual([{ location: 'body.visitor.name', message: 'must not be blank' }]);
      contract.expectValid(res, 'POST', '/v1/visits');
    }
    expect(await count(visits)).toBe(before);

    const tour = await makeType();
    const booked = await book(tour.id, '2030-01-08T09:00:00.000Z', {
      attendee: { name: '   ', phone: newPhone() },
    });
    expect(booked.statusCode).toBe(422);
    expect(booked.json().errors).toEqual([{ location: 'body.attendee.name', message: 'must not be blank' }]);
    expect(await count(`SELECT count(*)::int AS n FROM visitor.booking WHERE organisation_id = $org`)).toBe(
      0,
    );

    // the same rule on the other names: people, watchlist entries and their aliases, a delivery's collector
    const person = await call(t.app, 'POST', '/v1/people', { key, body: { name: ' ', email: 'b@x.test' } });
    expect(person.json().errors).toEqual([{ location: 'body.name', message: 'must not be blank' }]);
    const entry = await call(t.app, 'POST', '/v1/watchlist-entries', {
      key,
      body: { name: 'Kwame', aliases: ['  '], reason: 'x', severity: 'low' },
    });
    expect(entry.json().errors).toEqual([{ location: 'body.aliases', message: 'each must not be blank' }]);
    // a real name with spaces around it is still a name
    expect((await visit({ name: '  Kofi  ' })).statusCode).toBe(201);
  });

  it('a publishable key may not read GET /v1/booking-types/{id} (forbidden); it lists the public types', async () => {
    const pub = await makeType({ name: 'Open day', public: true });
    const pk = await org.key({ kind: 'publishable', scopes: ['bookings:read', 'bookings:write'] });
    const res = await call(t.app, 'GET', `/v1/booking-types/${pub.id}`, { key: pk });
    expect([res.statusCode, res.json().code]).toEqual([403, 'forbidden']);
    contract.expectValid(res, 'GET', `/v1/booking-types/${pub.id}`);
    const list = await call(t.app, 'GET', '/v1/booking-types', { key: pk });
    expect(list.json().data.map((x: Json) => [x.id, x.public_form !== null])).toEqual([[pub.id, true]]);
    expect(
      (await call(t.app, 'GET', `/v1/booking-types/${pub.id}/availability`, { key: pk })).statusCode,
    ).toBe(200);
    expect((await call(t.app, 'GET', `/v1/booking-types/${pub.id}`, { key })).statusCode).toBe(200);
    // the served contract says so
    const op = (await call(t.app, 'GET', '/v1/openapi.json')).json().paths['/booking-types/{btype_id}'].get;
    expect(op['x-publishable-key']).toBe(false);
  });

  it("a pending booking's confirm_by is never later than the slot's start", async () => {
    const type = await makeType({ requires_confirmation: true, confirmation_window_hours: 24 });
    // 4 hours before the slot, with a 24-hour window: confirm by the start
    const soon = await book(type.id, '2030-01-07T09:00:00.000Z');
    expect(soon.statusCode).toBe(201);
    expect(soon.json()).toMatchObject({ status: 'pending', confirm_by: '2030-01-07T09:00:00.000Z' });
    contract.expectValid(soon, 'POST', '/v1/bookings');
    // a slot beyond the window keeps the window
    const later = await book(type.id, '2030-01-10T09:00:00.000Z');
    expect(later.json().confirm_by).toBe(new Date(NOW + 24 * HOUR).toISOString());
  });

  it("cancelling a booking's visit is refused (invalid_state): the booking is cancelled instead, which frees the slot", async () => {
    const tour = await makeType();
    const start = '2030-01-08T09:00:00.000Z';
    const b = (await book(tour.id, start)).json();
    expect(b).toMatchObject({ status: 'confirmed', visit_id: expect.stringMatching(/^visit_/) });
    const res = await call(t.app, 'POST', `/v1/visits/${b.visit_id}/cancel`, { key, body: { reason: 'x' } });
    expect([res.statusCode, res.json().code]).toEqual([409, 'invalid_state']);
    expect(res.json().detail).toContain(`/v1/bookings/${b.id}/cancel`);
    contract.expectValid(res, 'POST', `/v1/visits/${b.visit_id}/cancel`);
    // nothing changed: the booking holds its slot, the visit is expected
    expect((await call(t.app, 'GET', `/v1/visits/${b.visit_id}`, { key })).json().status).toBe('expected');
    expect((await call(t.app, 'GET', `/v1/bookings/${b.id}`, { key })).json().status).toBe('confirmed');
    const remaining = async () =>
      (
        await call(t.app, 'GET', `/v1/booking-types/${tour.id}/availability?from=2030-01-08&to=2030-01-08`, {
          key,
        })
      )
        .json()
        .data.map((s: Json) => s.start);
    expect(await remaining()).not.toContain(start);
    // the booking's cancel cancels both and gives the slot back
    const cancelled = await call(t.app, 'POST', `/v1/bookings/${b.id}/cancel`, { key, body: {} });
    expect(cancelled.json().status).toBe('cancelled');
    expect((await call(t.app, 'GET', `/v1/visits/${b.visit_id}`, { key })).json().cancelled_at).toEqual(
      expect.any(String),
    );
    expect(await remaining()).toContain(start);
    // a visit of no booking is still cancelled as before
    const own = (await visit({})).json();
    expect((await call(t.app, 'POST', `/v1/visits/${own.id}/cancel`, { key, body: {} })).statusCode).toBe(
      200,
    );
  });

  it("the attendee's decline message states the slot in the site's local time, not UTC", async () => {
    await pg.query(`UPDATE visitor.site SET time_zone = 'America/New_York' WHERE id = $1`, [site]);
    const type = await makeType({ requires_confirmation: true });
    // 09:00 in New York on 8 January is 14:00 UTC
    const b = await book(type.id, '2030-01-08T14:00:00.000Z');
    expect(b.statusCode).toBe(201);
    await call(t.app, 'POST', `/v1/bookings/${b.json().id}/decline`, { key, body: {} });
    const body = await until(async () => {
      const rows = await pg.query(`SELECT body FROM visitor.message WHERE related_id = $1`, [b.json().id]);
      return rows.rows[0]?.body as string | undefined;
    });
    expect(body).toBe('Your booking for 8 Jan 2030, 09:00 was declined.');
  });

  it('GET /v1/openapi.json refuses an unknown query parameter, as every other /v1 route does', async () => {
    const res = await call(t.app, 'GET', '/v1/openapi.json?bogus=1&x=2');
    expect([res.statusCode, res.json().code]).toEqual([422, 'validation_failed']);
    expect(res.json().errors).toEqual([
      { location: 'query.bogus', message: 'is not a parameter of this endpoint' },
      { location: 'query.x', message: 'is not a parameter of this endpoint' },
    ]);
    contract.expectValid(res, 'GET', '/v1/openapi.json?bogus=1&x=2');
    // the same refusal as a route with a credential gives
    expect((await call(t.app, 'GET', '/v1/organisation?bogus=1&x=2', { key })).json().errors).toEqual(
      res.json().errors,
    );
    const doc = await call(t.app, 'GET', '/v1/openapi.json');
    expect([doc.statusCode, doc.json().openapi]).toEqual([200, '3.1.0']);
  });

  it('an internationalised e-mail address is refused (format: email is ASCII); its xn-- form is accepted', async () => {
    for (const email of ['ama@bücher.de', 'ämа@example.test', 'ama@例え.jp']) {
      const res = await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama', email } });
      expect([res.statusCode, res.json().errors?.[0]?.location]).toEqual([422, 'body.email']);
      const v = await visit({ email });
      expect([v.statusCode, v.json().errors?.[0]?.location]).toEqual([422, 'body.visitor.email']);
    }
    const ok = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Ama', email: 'ama@xn--bcher-kva.de' },
    });
    expect(ok.statusCode).toBe(201);
    contract.expectValid(ok, 'POST', '/v1/people');
    const schema = (await call(t.app, 'GET', '/v1/openapi.json')).json().components.schemas.CreatePersonBody;
    expect(schema.properties.email.format).toBe('email');
  });

  it("a problem's instance is the request path cut to 512 characters", async () => {
    const url = `/v1/visits/visit_${'a'.repeat(5000)}`;
    const res = await call(t.app, 'GET', url, { key });
    expect(res.headers['content-type']).toContain('application/problem+json');
    const { instance } = res.json();
    expect(instance).toBe(`${url.slice(0, 512)}…`);
    // never cut inside a %XX escape
    const escaped = `/v1/visits/${'%41'.repeat(2000)}`;
    const cut = (await call(t.app, 'GET', escaped, { key })).json().instance as string;
    expect(cut.length).toBeLessThanOrEqual(513);
    expect(cut).toMatch(/^\/v1\/visits\/(%41)+…$/);
    // a short path is echoed whole
    expect((await call(t.app, 'GET', '/v1/visits/visit_nope', { key })).json().instance).toBe(
      '/v1/visits/visit_nope',
    );
  });

  it('a cursor used with other filters is refused (validation_failed at query.cursor), on every list', async () => {
    for (let i = 0; i < 3; i++) expect((await visit({})).statusCode).toBe(201);
    const first = (await call(t.app, 'GET', '/v1/visits?limit=1&status=expected', { key })).json();
    expect(first.has_more).toBe(true);
    const cursor = encodeURIComponent(first.next_cursor);
    const other = await call(t.app, 'GET', `/v1/visits?limit=1&status=checked_in&cursor=${cursor}`, { key });
    expect([other.statusCode, other.json().code]).toEqual([422, 'validation_failed']);
    expect(other.json().errors).toEqual([
      { location: 'query.cursor', message: expect.stringContaining('other filters') },
    ]);
    contract.expectValid(other, 'GET', `/v1/visits?limit=1&status=checked_in&cursor=${cursor}`);
    // a filter dropped is another filter too
    expect((await call(t.app, 'GET', `/v1/visits?limit=1&cursor=${cursor}`, { key })).statusCode).toBe(422);
    // the same filters page on, whatever the limit
    const next = await call(t.app, 'GET', `/v1/visits?status=expected&limit=5&cursor=${cursor}`, { key });
    expect(next.statusCode).toBe(200);
    expect(next.json().data).toHaveLength(2);
    // people page with their own code: the same rule
    for (let i = 0; i < 2; i++)
      await call(t.app, 'POST', '/v1/people', { key, body: { name: `P ${i}`, email: `p${i}@x.test` } });
    const people = (await call(t.app, 'GET', '/v1/people?limit=1&can_host=true', { key })).json();
    const pc = encodeURIComponent(people.next_cursor);
    const reused = await call(t.app, 'GET', `/v1/people?limit=1&can_host=false&cursor=${pc}`, { key });
    expect(reused.json().errors?.[0]?.location).toBe('query.cursor');
    expect(
      (await call(t.app, 'GET', `/v1/people?limit=1&can_host=true&cursor=${pc}`, { key })).statusCode,
    ).toBe(200);
  });

  it('a clock event more than 31 days old or more than 5 minutes ahead is refused at body.occurred_at', async () => {
    const events = `SELECT count(*)::int AS n FROM visitor.attendance_event WHERE organisation_id = $org`;
    const clockAt = (at: number) =>
      call(t.app, 'POST', '/v1/attendance/events', {
        key,
        body: {
          person_id: host,
          site_id: site,
          direction: 'in',
          occurred_at: new Date(at).toISOString(),
          method: 'card',
        },
      });
    for (const at of [NOW - 3 * 365 * DAY_MS, NOW - 31 * DAY_MS - 1000, NOW + 2 * DAY_MS, NOW + 6 * 60_000]) {
      const res = await clockAt(at);
      expect([at, res.statusCode, res.json().errors?.[0]?.location]).toEqual([at, 422, 'body.occurred_at']);
      contract.expectValid(res, 'POST', '/v1/attendance/events');
    }
    expect(await count(events)).toBe(0);
    for (const at of [NOW - 30 * DAY_MS, NOW - HOUR, NOW + 4 * 60_000])
      expect((await clockAt(at)).statusCode).toBe(201);
    expect(await count(events)).toBe(3);
  });
});
