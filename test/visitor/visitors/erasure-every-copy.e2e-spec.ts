import { randomUUID } from 'node:crypto';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { BookingTypesService } from '../../../src/visitor/booking-types/booking-types.service';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { freshOrg, phoneFrom, PNG, useDesk } from '../../support/desk-app';
import { call } from '../../support/platform-fixtures';
import { until } from '../../support/until';
import { WebhookReceiver } from '../../support/webhook-receiver';

const newPhone = phoneFrom(5700000);
const DAY = [{ start: '09:00', end: '17:00' }];
const EVERY_DAY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY };
/** Letters only, so a needle never meets JSON escaping or a number's formatting. */
const letters = () =>
  randomUUID()
    .replace(/[^a-f]/g, '')
    .padEnd(8, 'q')
    .slice(0, 8)
    .replace(/^./, (c) => c.toUpperCase());

/**
 * Columns the scan skips, each with its reason. Nothing else is skipped: a new table or column holding text is
 * scanned without editing this test.
 */
const SKIPPED: Record<string, string> = {
  // the migrations' own bookkeeping (class names and timestamps), never written by a request
  'public.migrations.name': 'migration names',
};

/**
 * Erasure reaches every copy: after a person touched every resource that can hold them, no text, varchar, json or
 * jsonb column (or array of those) of any table in any of the application's schemas holds their name, phone,
 * e-mail, company or answers. The tables and columns are read from information_schema, so the test covers a table
 * added later without being edited.
 */
describe('erasure reaches every copy (generated over every column of every table)', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(() => receiver?.stop());
  const d = useDesk();

  const tenant = () => ({ organisationId: d.org.id, livemode: false });
  const slot = (days: number, hour = 9) => {
    const n = new Date();
    return new Date(Date.UTC(n.getUTCFullYear(), n.getUTCMonth(), n.getUTCDate() + days, hour)).toISOString();
  };
  const bookingType = (requiresConfirmation: boolean) =>
    d.t.app.get(BookingTypesService).save(tenant(), null, {
      name: 'Site tour',
      visit_type: 'meeting',
      site_id: d.site,
      host_ids: [d.host],
      duration_minutes: 60,
      capacity: 5,
      horizon_days: 366,
      weekly_hours: EVERY_DAY,
      requires_confirmation: requiresConfirmation,
    });
  /** A visit form with two questions, an endpoint hearing every event and one hearing watchlist.matched, both echoing. */
  const setUp = async () => {
    await d.t.app.get(FormsService).publish(tenant(), 'visit', {
      type: 'object',
      properties: { topic: { type: 'string', 'x-svc-public': true }, badge_code: { type: 'string' } },
      'x-svc-order': ['topic', 'badge_code'],
    } as never);
    for (const events of [['*'], ['watchlist.matched']]) {
      const res = await call(d.t.app, 'POST', '/v1/webhook-endpoints', {
        key: d.key,
        body: { url: receiver.url(`/echo/${d.org.id}`), enabled_events: events },
      });
      expect(res.statusCode).toBe(201);
    }
  };
  const person = () => {
    const tag = letters();
    const p = {
      name: `Adwoa ${tag} Erasure`,
      phone: newPhone(),
      email: `adwoa.${tag.toLowerCase()}@erasure.test`,
      company: `${tag} Holdings`,
      answers: [`Topic ${tag}`, `Badge ${tag}`],
      reasons: [`Declined because ${tag}`, `Cancelled because ${tag}`, `Note about ${tag}`],
    };
    return {
      ...p,
      needles: [p.name, p.phone, p.phone.slice(1), p.email, p.company, ...p.answers, ...p.reasons],
    };
  };
  const book = (typeId: string, p: ReturnType<typeof person>, days: number, idempotencyKey?: string) =>
    call(d.t.app, 'POST', '/v1/bookings', {
      key: d.key,
      idempotencyKey,
      body: {
        booking_type_id: typeId,
        start: slot(days),
        attendee: { name: p.name, phone: p.phone, email: p.email, company: p.company },
        custom_fields: { topic: p.answers[0], badge_code: p.answers[1] },
      },
    });
  /**
   * Waits until every pass of the organisation is sent (or failed) and then every webhook delivery is done (each
   * answered by the echoing receiver), so no delivery is in flight when the erasure commits.
   */
  const deliveriesSettled = async () => {
    await until(async () => {
      const r = await d.pg.query(
        `SELECT count(*)::int AS n FROM visitor.visit_pass p JOIN visitor.visit v ON v.id = p.visit_id
          WHERE v.organisation_id = $1 AND p.status = 'pending' AND p.revoked_at IS NULL`,
        [d.org.id],
      );
      return r.rows[0].n === 0;
    }, 20_000);
    await until(async () => {
      const r = (
        await d.pg.query(
          `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*)::int AS n
             FROM visitor.webhook_delivery WHERE organisation_id = $1`,
          [d.org.id],
        )
      ).rows[0];
      return r.n > 0 && r.pending === 0;
    }, 20_000);
  };
  const echoed = async (needle: string) =>
    (
      await d.pg.query(
        `SELECT count(*)::int AS n FROM visitor.webhook_attempt WHERE response_excerpt LIKE $1`,
        [`%${needle}%`],
      )
    ).rows[0].n as number;

  /** The console's view of the `booking.created` delivery of `bookingId` (what an admin reads), as text. */
  const consoleDelivery = async (bookingId: string) => {
    const email = `admin@${d.org.id.slice(4).toLowerCase()}.test`;
    const password = 'correct horse battery staple';
    await d.t.app
      .get(AccountsService)
      .create(d.org.id, { email, name: 'A', role: 'admin', password }, { type: 'operator', id: 'test' })
      .catch(() => undefined); // created by an earlier call
    const session = await d.t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password },
    });
    const cookie = String(session.headers['set-cookie']).split(';')[0];
    const { rows } = await d.pg.query(
      `SELECT d.id FROM visitor.webhook_delivery d JOIN visitor.event e ON e.id = d.event_id
        WHERE e.type = 'booking.created' AND e.body LIKE $1`,
      [`%${bookingId}%`],
    );
    expect(rows.length).toBeGreaterThan(0);
    const res = await d.t.app.inject({
      method: 'GET',
      url: `/console/webhook-deliveries/${rows[0].id}`,
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().attempts.length).toBeGreaterThan(0);
    return res.body;
  };

  /** Every `schema.table.column` of a text-like type, in every schema but PostgreSQL's own, with the needles it holds. */
  async function traces(needles: string[]): Promise<string[]> {
    const columns = (
      await d.pg.query(
        `SELECT c.table_schema AS s, c.table_name AS t, c.column_name AS c
           FROM information_schema.columns c
           JOIN information_schema.tables t USING (table_schema, table_name)
          WHERE t.table_type = 'BASE TABLE'
            AND c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.table_schema NOT LIKE 'pg\\_%'
            AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
                 OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar', '_json', '_jsonb')))
          ORDER BY 1, 2, 3`,
      )
    ).rows as { s: string; t: string; c: string }[];
    // the scan sees the tables of every domain (a wrong query would pass with nothing to scan)
    const tables = new Set(columns.map((x) => `${x.s}.${x.t}`));
    for (const t of [
      'visitor.booking',
      'visitor.webhook_attempt',
      'visitor.idempotency_key',
      'visitor.message',
    ])
      expect(tables).toContain(t);
    const found: string[] = [];
    for (const { s, t, c } of columns) {
      if (SKIPPED[`${s}.${t}.${c}`]) continue;
      const hits = await d.pg.query(
        `SELECT n FROM unnest($1::text[]) AS n
          WHERE EXISTS (SELECT 1 FROM "${s}"."${t}" WHERE strpos("${c}"::text, n) > 0)`,
        [needles],
      );
      for (const h of hits.rows) found.push(`${s}.${t}.${c}: ${h.n}`);
    }
    return found;
  }

  it('a visitor who touched every resource: after erasure no column of any table holds their data', async () => {
    await setUp();
    const p = person();
    const confirmedType = await bookingType(false);
    const pendingType = await bookingType(true);
    // a booking with answers, confirmed at once: its visit makes the visitor
    const booked = await book(confirmedType.id, p, 2);
    expect(booked.statusCode).toBe(201);
    const booking = booked.json();
    expect(booking.visit_id).toMatch(/^visit_/);
    // a second booking, declined with a shared reason (a message to the attendee), a third cancelled
    const pending = (await book(pendingType.id, p, 3)).json();
    const declined = await call(d.t.app, 'POST', `/v1/bookings/${pending.id}/decline`, {
      key: d.key,
      body: { reason: p.reasons[0], share_reason_with_attendee: true },
    });
    expect(declined.json().status).toBe('declined');
    const third = (await book(confirmedType.id, p, 4)).json();
    const cancelled = await call(d.t.app, 'POST', `/v1/bookings/${third.id}/cancel`, {
      key: d.key,
      body: { reason: p.reasons[1] },
    });
    expect(cancelled.json().status).toBe('cancelled');
    // a watchlist entry that catches the visitor by a near name (the given name as an initial) (the entry is the organisation's, not theirs)
    const entry = await call(d.t.app, 'POST', '/v1/watchlist-entries', {
      key: d.key,
      body: { name: p.name.replace(/^Adwoa/, 'A.'), reason: 'Incident', severity: 'low' },
    });
    expect(entry.statusCode).toBe(201);
    // a visit today with answers and a purpose, checked in; a roll call that marks them with a note
    const visit = await call(d.t.app, 'POST', '/v1/visits', {
      key: d.key,
      body: {
        site_id: d.site,
        host_id: d.host,
        type: 'meeting',
        purpose: `Meeting ${p.name}`,
        visitor: { name: p.name, phone: p.phone, email: p.email, company: p.company },
        custom_fields: { topic: p.answers[0], badge_code: p.answers[1] },
      },
    });
    expect(visit.statusCode).toBe(201);
    const v = visit.json();
    expect(v.visitor.id).toBe(
      (await call(d.t.app, 'GET', `/v1/visits/${booking.visit_id}`, { key: d.key })).json().visitor.id,
    );
    expect(v.watchlist?.flagged).toBe(true);
    expect(
      (await call(d.t.app, 'POST', `/v1/visits/${v.id}/check-in`, { key: d.key, body: {} })).statusCode,
    ).toBe(200);
    const rc = (
      await call(d.t.app, 'POST', '/v1/rollcalls', { key: d.key, body: { site_id: d.site } })
    ).json();
    const marked = await call(d.t.app, 'POST', `/v1/rollcalls/${rc.id}/marks`, {
      key: d.key,
      body: { subject_id: v.visitor.id, status: 'needs_help', note: p.reasons[2] },
    });
    expect(marked.statusCode).toBe(200);
    // a photo of the visitor
    const photo = await call(d.t.app, 'POST', '/v1/files', {
      key: d.key,
      body: {
        purpose: 'visitor_photo',
        content_type: 'image/png',
        size: PNG.length,
        visit_id: v.id,
        filename: `${p.name}.png`,
      },
    });
    expect(photo.statusCode).toBe(201);
    // passes sent (messages), every webhook delivery answered with an echo of its payload
    await until(async () => {
      const n = await d.pg.query(
        `SELECT count(*)::int AS n FROM visitor.message WHERE organisation_id = $1 AND recipient IN ($2, $3)`,
        [d.org.id, p.phone, p.email],
      );
      return n.rows[0].n >= 2;
    }, 20_000);
    await deliveriesSettled();
    for (const needle of [p.name, p.answers[0], p.reasons[0]])
      expect({ needle, echoed: (await echoed(needle)) > 0 }).toEqual({ needle, echoed: true });
    expect(await consoleDelivery(booking.id)).toContain(p.answers[0]);
    const before = await traces(p.needles);
    for (const t of [
      'visitor.booking',
      'visitor.webhook_attempt',
      'visitor.idempotency_key',
      'visitor.message',
    ])
      expect(before.some((f) => f.startsWith(`${t}.`))).toBe(true);

    const erased = await call(d.t.app, 'DELETE', `/v1/visitors/${v.visitor.id}`, { key: d.key });
    expect(erased.statusCode).toBe(204);
    expect(await traces(p.needles)).toEqual([]);
    const shown = await consoleDelivery(booking.id);
    for (const needle of p.needles) expect(shown).not.toContain(needle);
  });

  it('a booking retried with its key after the erasure is replayed redacted: nothing is created again', async () => {
    await setUp();
    const p = person();
    const type = await bookingType(false);
    const key = randomUUID();
    const first = await book(type.id, p, 2, key);
    expect(first.statusCode).toBe(201);
    const b = first.json();
    const visitorId = (await call(d.t.app, 'GET', `/v1/visits/${b.visit_id}`, { key: d.key })).json().visitor
      .id;
    const counts = async () =>
      (
        await d.pg.query(
          `SELECT (SELECT count(*) FROM visitor.booking WHERE organisation_id = $1)::int AS bookings,
                  (SELECT count(*) FROM visitor.visit WHERE organisation_id = $1)::int AS visits,
                  (SELECT count(*) FROM visitor.visitor WHERE organisation_id = $1)::int AS visitors,
                  (SELECT count(*) FROM visitor.event WHERE organisation_id = $1 AND type = 'pass.sent')::int AS passes,
                  (SELECT count(*) FROM visitor.message WHERE organisation_id = $1)::int AS messages`,
          [d.org.id],
        )
      ).rows[0];
    await until(async () => (await counts()).passes === 1, 20_000);
    await deliveriesSettled();
    expect((await call(d.t.app, 'DELETE', `/v1/visitors/${visitorId}`, { key: d.key })).statusCode).toBe(204);
    const after = await counts();

    const retry = await book(type.id, p, 2, key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual({
      ...b,
      attendee: { name: null, phone: null, email: null, company: null },
      custom_fields: {},
    });
    expect(await counts()).toEqual(after);
    expect(
      (await call(d.t.app, 'GET', `/v1/bookings/${b.id}`, { key: d.key })).json().attendee.name,
    ).toBeNull();
    expect(await traces(p.needles)).toEqual([]);
  });

  it('DELETE /v1/bookings/{id}/attendee erases an attendee who never became a visitor, every copy, sending nothing', async () => {
    await setUp();
    const p = person();
    const other = person();
    const type = await bookingType(true);
    const key = randomUUID();
    const declined = (await book(type.id, p, 2, key)).json();
    await call(d.t.app, 'POST', `/v1/bookings/${declined.id}/decline`, {
      key: d.key,
      body: { reason: p.reasons[0], share_reason_with_attendee: true },
    });
    const stillPending = (await book(type.id, p, 3)).json();
    const someoneElse = (await book(type.id, other, 3)).json();
    await until(async () => {
      const n = await d.pg.query(`SELECT count(*)::int AS n FROM visitor.message WHERE related_id = $1`, [
        declined.id,
      ]);
      return n.rows[0].n >= 1;
    }, 20_000);
    await deliveriesSettled();
    expect(await echoed(p.name)).toBeGreaterThan(0);
    const rows = async () =>
      (
        await d.pg.query(
          `SELECT (SELECT count(*) FROM visitor.visit WHERE organisation_id = $1)::int AS visits,
                  (SELECT count(*) FROM visitor.visitor WHERE organisation_id = $1)::int AS visitors,
                  (SELECT count(*) FROM visitor.event WHERE organisation_id = $1)::int AS events,
                  (SELECT count(*) FROM visitor.message WHERE organisation_id = $1)::int AS messages`,
          [d.org.id],
        )
      ).rows[0];
    const before = await rows();
    expect(before.visits).toBe(0);

    // refused requests change nothing: no scope, unknown booking, a publishable key
    const noScope = await d.org.key({ scopes: ['bookings:read', 'bookings:write', 'visitors:read'] });
    const refused = await call(d.t.app, 'DELETE', `/v1/bookings/${declined.id}/attendee`, { key: noScope });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'scope_missing' });
    expect(refused.json().detail).toContain('visitors:delete');
    d.contract.expectValid(refused, 'DELETE', '/v1/bookings/{booking_id}/attendee');
    const unknown = await call(d.t.app, 'DELETE', '/v1/bookings/booking_doesNotExist/attendee', {
      key: d.key,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    const elsewhere = await freshOrg(d);
    const foreign = await call(d.t.app, 'DELETE', `/v1/bookings/${declined.id}/attendee`, {
      key: elsewhere.key,
    });
    expect(foreign.statusCode).toBe(404);
    expect((await traces(p.needles)).length).toBeGreaterThan(0);
    expect(await rows()).toEqual(before);

    const res = await call(d.t.app, 'DELETE', `/v1/bookings/${declined.id}/attendee`, { key: d.key });
    expect(res.statusCode).toBe(204);
    d.contract.expectValid(res, 'DELETE', '/v1/bookings/{booking_id}/attendee');
    expect(await traces(p.needles)).toEqual([]);
    // no visit, no visitor, no event, no message: nothing was created or sent
    expect(await rows()).toEqual(before);
    for (const id of [declined.id, stillPending.id]) {
      const b = (await call(d.t.app, 'GET', `/v1/bookings/${id}`, { key: d.key })).json();
      expect(b.attendee).toEqual({ name: null, phone: null, email: null, company: null });
      expect(b.custom_fields).toEqual({});
      expect(b.decline_reason).toBeNull();
    }
    expect(stillPending.status).toBe('pending');
    // another attendee's booking keeps its data
    const kept = (await call(d.t.app, 'GET', `/v1/bookings/${someoneElse.id}`, { key: d.key })).json();
    expect(kept.attendee.name).toBe(other.name);
    // a retry of the first booking replays it redacted; erasing again is a no-op
    const retry = await book(type.id, p, 2, key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toMatchObject({
      id: declined.id,
      attendee: { name: null, phone: null, email: null, company: null },
      custom_fields: {},
    });
    expect(
      (await call(d.t.app, 'DELETE', `/v1/bookings/${declined.id}/attendee`, { key: d.key })).statusCode,
    ).toBe(204);
    expect(await rows()).toEqual(before);
    expect(await traces(p.needles)).toEqual([]);

    // the served document lists the route with its scope
    const doc = (await d.t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/bookings/{booking_id}/attendee']?.delete).toMatchObject({
      operationId: 'eraseBookingAttendee',
      'x-required-scope': 'visitors:delete',
    });
  });

  it('erasing an attendee who has a visitor record erases that visitor (matched by phone)', async () => {
    await setUp();
    const p = person();
    const type = await bookingType(true);
    const pending = (await book(type.id, p, 2)).json();
    const v = (
      await call(d.t.app, 'POST', '/v1/visits', {
        key: d.key,
        body: {
          site_id: d.site,
          host_id: d.host,
          type: 'meeting',
          visitor: { name: p.name, phone: p.phone },
        },
      })
    ).json();
    await deliveriesSettled();
    expect(
      (await call(d.t.app, 'DELETE', `/v1/bookings/${pending.id}/attendee`, { key: d.key })).statusCode,
    ).toBe(204);
    expect((await call(d.t.app, 'GET', `/v1/visitors/${v.visitor.id}`, { key: d.key })).statusCode).toBe(404);
    const erasedEvents = await d.pg.query(
      `SELECT count(*)::int AS n FROM visitor.event WHERE type = 'visitor.erased' AND body LIKE $1`,
      [`%${v.visitor.id}%`],
    );
    expect(erasedEvents.rows[0].n).toBe(1);
    expect(await traces(p.needles)).toEqual([]);
  });
});
