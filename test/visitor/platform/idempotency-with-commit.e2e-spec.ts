import { randomUUID } from 'node:crypto';
import { bootVisitorOrg, VisitorOrg } from '../../support/visitor-org';
import { call } from '../../support/platform-fixtures';
import { saveBookingType } from '../../support/booking-fixtures';

/**
 * `POST /v1/visits` and `POST /v1/bookings` take their Idempotency-Key with the commit of their change
 * (`@ClaimedWithCommit`), not with a statement of their own before the handler: the same answers as every other
 * POST (idempotency.e2e-spec.ts) — one change per key, replays, refusals, a stored 4xx, a dead holder taken over.
 */
describe('Idempotency-Key taken with the commit (visit and booking create)', () => {
  let o: VisitorOrg;
  let phone = 7_300_000;

  beforeAll(async () => {
    o = await bootVisitorOrg();
  }, 60_000);
  afterAll(() => o.close());

  const invitation = () => ({ visitor: { name: 'Adjoa Retry', phone: `+23324${++phone}` } });
  const count = async (sql: string, values: unknown[]) => Number((await o.pg.query(sql, values)).rows[0].n);
  const visitsOf = (p: string) =>
    count(
      `SELECT count(*) AS n FROM visitor.visit v JOIN visitor.visitor p ON p.id = v.visitor_id
        WHERE v.organisation_id = $1 AND p.phone = $2`,
      [o.org.id, p],
    );
  const passesOf = (p: string) =>
    count(
      `SELECT count(*) AS n FROM visitor.visit_pass s JOIN visitor.visit v ON v.id = s.visit_id
         JOIN visitor.visitor p ON p.id = v.visitor_id WHERE v.organisation_id = $1 AND p.phone = $2`,
      [o.org.id, p],
    );
  const keyRow = async (key: string) =>
    (
      await o.pg.query(
        `SELECT state, response_status, xmin::text, xmax::text FROM visitor.idempotency_key WHERE key = $1`,
        [key],
      )
    ).rows[0] as { state: string; response_status: number; xmin: string; xmax: string } | undefined;

  it('stores the answer with the change; a replay answers it again, writes nothing and leaves the key row as is', async () => {
    const key = randomUUID();
    const body = invitation();
    const first = await o.visit(body, undefined, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const stored = await keyRow(key);
    expect(stored).toMatchObject({ state: 'done', response_status: 201 });
    for (let i = 0; i < 3; i++) {
      const again = await o.visit(body, undefined, key);
      expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(again.json()).toEqual(first.json());
    }
    expect(await keyRow(key)).toEqual(stored);
    expect(stored!.xmax).toBe('0');
    expect(await visitsOf(body.visitor.phone)).toBe(1);
    expect(await passesOf(body.visitor.phone)).toBe(1);
  });

  it('20 concurrent requests with one key: exactly one creates the visit, the rest replay it or get conflict', async () => {
    const key = randomUUID();
    const body = invitation();
    const results = await Promise.all(Array.from({ length: 20 }, () => o.visit(body, undefined, key)));
    const made = results.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    const replayed = results.filter((r) => r.headers['idempotent-replayed'] === 'true');
    const conflicts = results.filter((r) => r.statusCode === 409);
    expect(made).toHaveLength(1);
    expect(replayed.length + conflicts.length).toBe(19);
    for (const r of conflicts) expect(r.json()).toMatchObject({ code: 'conflict' });
    for (const r of replayed) expect(r.json()).toEqual(made[0].json());
    expect(await visitsOf(body.visitor.phone)).toBe(1);
    expect(await passesOf(body.visitor.phone)).toBe(1);
  });

  it('the same key with another body is idempotency_key_reused, and nothing is created', async () => {
    const key = randomUUID();
    expect((await o.visit(invitation(), undefined, key)).statusCode).toBe(201);
    const other = invitation();
    const reused = await o.visit(other, undefined, key);
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({
      code: 'idempotency_key_reused',
      errors: [{ location: 'header.Idempotency-Key' }],
    });
    expect(await visitsOf(other.visitor.phone)).toBe(0);
  });

  it('a 4xx is stored and replayed', async () => {
    const key = randomUUID();
    const body = { ...invitation(), host_id: 'person_doesnotexist' };
    const first = await o.visit(body, undefined, key);
    expect(first.statusCode).toBe(422);
    expect(await keyRow(key)).toMatchObject({ state: 'done', response_status: 422 });
    const again = await o.visit(body, undefined, key);
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([422, 'true']);
    expect(again.json()).toEqual(first.json());
  });

  it('a retry after its references changed still replays the visit (the refused retry answers the stored one)', async () => {
    const host = (
      await call(o.t.app, 'POST', '/v1/people', {
        key: o.key,
        body: { name: 'Kwame Leaving', email: `kwame.${phone}@host.test` },
      })
    ).json().id as string;
    const key = randomUUID();
    const body = { ...invitation(), host_id: host };
    const first = await o.visit(body, undefined, key);
    expect(first.statusCode).toBe(201);
    expect(
      (await call(o.t.app, 'POST', `/v1/people/${host}/deactivate`, { key: o.key, body: {} })).statusCode,
    ).toBe(200);
    // the same invitation with a new key is refused now
    expect((await o.visit(body)).statusCode).toBe(422);
    const again = await o.visit(body, undefined, key);
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.json()).toEqual(first.json());
    expect(await visitsOf(body.visitor.phone)).toBe(1);
  });

  it('while a request with the key is in its transaction, another is conflict and creates nothing; an answered key replays even then', async () => {
    const key = randomUUID();
    const body = invitation();
    // What a request in flight holds: the key's transaction lock (idempotency.repository.ts, inTransaction).
    await o.pg.query('BEGIN');
    await o.pg.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `idempotency ${o.org.id} false ${key}`,
    ]);
    try {
      const second = await o.visit(body, undefined, key);
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: 'conflict' });
      expect(await keyRow(key)).toBeUndefined();
    } finally {
      await o.pg.query('ROLLBACK');
    }
    expect(await visitsOf(body.visitor.phone)).toBe(0);
    const after = await o.visit(body, undefined, key);
    expect(after.statusCode).toBe(201);
    expect(await visitsOf(body.visitor.phone)).toBe(1);
    // Once the key is answered, its row decides even while another retry holds the lock: a replay, or a reuse.
    await o.pg.query('BEGIN');
    await o.pg.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `idempotency ${o.org.id} false ${key}`,
    ]);
    try {
      const replay = await o.visit(body, undefined, key);
      expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(replay.json()).toEqual(after.json());
      expect((await o.visit(invitation(), undefined, key)).json()).toMatchObject({
        code: 'idempotency_key_reused',
      });
    } finally {
      await o.pg.query('ROLLBACK');
    }
    expect(await visitsOf(body.visitor.phone)).toBe(1);
  });

  it('a key held by a running request is conflict and rolls the change back; once its holder died, the same request takes it over', async () => {
    const key = randomUUID();
    const body = invitation();
    // The request's hash, as the first run stored it; then the key reads as held by a request still running.
    expect((await o.visit(body, undefined, key)).statusCode).toBe(201);
    await o.pg.query(
      `DELETE FROM visitor.visit WHERE visitor_id IN (SELECT id FROM visitor.visitor WHERE phone = $1)`,
      [body.visitor.phone],
    );
    await o.pg.query(
      `UPDATE visitor.idempotency_key SET state = 'running', response_status = NULL, response_body = NULL,
              locked_until = now() + interval '1 hour' WHERE key = $1`,
      [key],
    );
    const held = await o.visit(body, undefined, key);
    expect(held.statusCode).toBe(409);
    expect(held.json()).toMatchObject({ code: 'conflict' });
    expect(await visitsOf(body.visitor.phone)).toBe(0);
    await o.pg.query(
      `UPDATE visitor.idempotency_key SET locked_until = now() - interval '1 second' WHERE key = $1`,
      [key],
    );
    const other = await o.visit(invitation(), undefined, key);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const retry = await o.visit(body, undefined, key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await visitsOf(body.visitor.phone)).toBe(1);
    expect(await keyRow(key)).toMatchObject({ state: 'done', response_status: 201 });
  });

  it('an expired key (over 24 hours) is used again, for another request', async () => {
    const key = randomUUID();
    expect((await o.visit(invitation(), undefined, key)).statusCode).toBe(201);
    await o.pg.query(
      `UPDATE visitor.idempotency_key SET created_at = created_at - interval '25 hours' WHERE key = $1`,
      [key],
    );
    const body = invitation();
    const reuse = await o.visit(body, undefined, key);
    expect(reuse.statusCode).toBe(201);
    expect(reuse.headers['idempotent-replayed']).toBeUndefined();
    expect(await visitsOf(body.visitor.phone)).toBe(1);
    const replay = await o.visit(body, undefined, key);
    expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
  });

  it('a booking retried once its slot is full replays the booking (the full slot rolls the retry back)', async () => {
    const tour = await saveBookingType(
      o.t.app,
      { organisationId: o.org.id, livemode: false },
      { site: o.site, host: o.host },
    );
    const d = new Date();
    const start = new Date(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 2, 10),
    ).toISOString();
    const key = randomUUID();
    const body = {
      booking_type_id: tour.id,
      start,
      attendee: { name: 'Abena Attendee', phone: `+23324${++phone}`, email: 'abena@example.test' },
    };
    const book = () => call(o.t.app, 'POST', '/v1/bookings', { key: o.key, idempotencyKey: key, body });
    const first = await book();
    expect(first.statusCode).toBe(201);
    expect(first.json().status).toBe('confirmed');
    const again = await book();
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.json()).toEqual(first.json());
    const someoneElse = await call(o.t.app, 'POST', '/v1/bookings', {
      key: o.key,
      body: { ...body, attendee: { ...body.attendee, phone: `+23324${++phone}` } },
    });
    expect(someoneElse.json()).toMatchObject({ code: 'conflict' });
    expect(
      await count(`SELECT count(*) AS n FROM visitor.booking WHERE booking_type_id = $1`, [tour.id]),
    ).toBe(1);
  });
});
