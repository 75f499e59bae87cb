import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { ProbeModule } from '../../fixtures/probe.module';
import { call, createOrg } from '../../support/platform-fixtures';
import { PeriodicScheduler } from '../../../src/common/periodic';

describe('Idempotency-Key on /v1 POSTs', () => {
  let t: TestApp;
  let pg: Client;
  let key: string;

  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [ProbeModule], env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    key = await (await createOrg(t.app, 'pro')).key();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  const peopleNamed = async (email: string) =>
    Number((await pg.query(`SELECT count(*) FROM visitor.person WHERE email = $1`, [email])).rows[0].count);

  it('is required and must be a UUID (validation_failed at header.Idempotency-Key)', async () => {
    for (const idempotencyKey of [null, 'not-a-uuid']) {
      const res = await call(t.app, 'POST', '/v1/people', {
        key,
        idempotencyKey,
        body: { name: 'A', email: 'a@example.com' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ location: 'header.Idempotency-Key' }],
      });
    }
    expect(await peopleNamed('a@example.com')).toBe(0);
  });

  it('replays the stored response with Idempotent-Replayed: true and no second side effect', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'Esi Owusu', email: 'esi@example.com', department: 'Finance' };
    const first = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same body with its keys in another order is the same request.
    const again = await call(t.app, 'POST', '/v1/people', {
      key,
      idempotencyKey,
      body: { department: 'Finance', email: 'esi@example.com', name: 'Esi Owusu' },
    });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await peopleNamed('esi@example.com')).toBe(1);
    const events = await pg.query(
      `SELECT count(*) FROM visitor.event WHERE type = 'person.created' AND body::jsonb->'data'->'object'->>'email' = 'esi@example.com'`,
    );
    expect(Number(events.rows[0].count)).toBe(1);
  });

  it('the same key with a different body or path is idempotency_key_reused', async () => {
    const idempotencyKey = randomUUID();
    expect(
      (
        await call(t.app, 'POST', '/v1/people', {
          key,
          idempotencyKey,
          body: { name: 'B', email: 'b@example.com' },
        })
      ).statusCode,
    ).toBe(201);
    const res = await call(t.app, 'POST', '/v1/people', {
      key,
      idempotencyKey,
      body: { name: 'B', email: 'b2@example.com' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const other = await call(t.app, 'POST', '/v1/__auth-probe/flaky', {
      key,
      idempotencyKey,
      body: { name: 'B', email: 'b@example.com' },
    });
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await peopleNamed('b2@example.com')).toBe(0);
  });

  it('keys are scoped to organisation and mode', async () => {
    const idempotencyKey = randomUUID();
    const other = await (await createOrg(t.app, 'pro')).key();
    const a = await call(t.app, 'POST', '/v1/people', {
      key,
      idempotencyKey,
      body: { name: 'C', email: 'c@example.com' },
    });
    const b = await call(t.app, 'POST', '/v1/people', {
      key: other,
      idempotencyKey,
      body: { name: 'C', email: 'c@example.com' },
    });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await peopleNamed('c@example.com')).toBe(2);
  });

  it('a stored answer replays only to the credential that made it (another one gets idempotency_key_reused)', async () => {
    const org = await createOrg(t.app, 'pro');
    const secret = await org.key();
    const publishable = await org.key({ kind: 'publishable' });
    const otherSecret = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    const host = await call(t.app, 'POST', '/v1/people', {
      key: secret,
      body: { name: 'Abena Host', email: 'abena.host@credential.test' },
    });
    expect(host.statusCode).toBe(201);
    const visits = async () =>
      Number(
        (await pg.query(`SELECT count(*) FROM visitor.visit WHERE organisation_id = $1`, [org.id])).rows[0]
          .count,
      );
    // 'meeting' is not open for pre-registration: a publishable key may not make this visit
    const body = {
      site_id: site,
      host_id: host.json().id,
      type: 'meeting',
      visitor: { name: 'Kwesi Guest', phone: '+233241230987' },
    };
    const own = await call(t.app, 'POST', '/v1/visits', { key: publishable, body });
    expect(own.json()).toMatchObject({ code: 'validation_failed', errors: [{ location: 'body.type' }] });

    const idempotencyKey = randomUUID();
    const made = await call(t.app, 'POST', '/v1/visits', { key: secret, idempotencyKey, body });
    expect(made.statusCode).toBe(201);
    for (const stranger of [publishable, otherSecret]) {
      const res = await call(t.app, 'POST', '/v1/visits', { key: stranger, idempotencyKey, body });
      expect({ status: res.statusCode, replayed: res.headers['idempotent-replayed'] }).toEqual({
        status: 422,
        replayed: undefined,
      });
      expect(res.json()).toMatchObject({
        code: 'idempotency_key_reused',
        errors: [{ location: 'header.Idempotency-Key' }],
      });
      expect(res.body).not.toContain(made.json().id);
    }
    expect(await visits()).toBe(1);
    // the credential that made it still gets its answer
    const again = await call(t.app, 'POST', '/v1/visits', { key: secret, idempotencyKey, body });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.json()).toEqual(made.json());
  });

  it('20 concurrent requests with one key: exactly one executes, the rest replay or get conflict', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'Yaw Boateng', email: 'yaw@example.com' };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body })),
    );
    const executed = results.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    const replayed = results.filter((r) => r.headers['idempotent-replayed'] === 'true');
    const conflicts = results.filter((r) => r.statusCode === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + conflicts.length).toBe(19);
    for (const r of conflicts) expect(r.json()).toMatchObject({ code: 'conflict' });
    for (const r of replayed) expect(r.json()).toEqual(executed[0].json());
    expect(await peopleNamed('yaw@example.com')).toBe(1);
  });

  it('a 5xx stores nothing: a retry with the same key runs again', async () => {
    const idempotencyKey = randomUUID();
    const first = await call(t.app, 'POST', '/v1/__auth-probe/flaky', {
      key,
      idempotencyKey,
      body: { x: 1 },
    });
    expect(first.statusCode).toBe(500);
    const retry = await call(t.app, 'POST', '/v1/__auth-probe/flaky', {
      key,
      idempotencyKey,
      body: { x: 1 },
    });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await call(t.app, 'POST', '/v1/__auth-probe/flaky', {
      key,
      idempotencyKey,
      body: { x: 1 },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retry.json());
  });

  it('a 4xx is stored and replayed too', async () => {
    const idempotencyKey = randomUUID();
    const first = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body: { name: 'D' } });
    expect(first.statusCode).toBe(422);
    const again = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body: { name: 'D' } });
    expect(again.statusCode).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('a replay only reads: the stored key row is neither updated nor locked', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'R', email: 'r@example.com' };
    expect((await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body })).statusCode).toBe(201);
    const version = async () =>
      (
        await pg.query(`SELECT xmin::text, xmax::text FROM visitor.idempotency_key WHERE key = $1`, [
          idempotencyKey,
        ])
      ).rows[0];
    const before = await version();
    for (let i = 0; i < 3; i++) {
      const res = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body });
      expect(res.headers['idempotent-replayed']).toBe('true');
    }
    expect(await version()).toEqual(before);
    expect(before.xmax).toBe('0');
  });

  it('a request whose holder died (lock expired) is taken over by a retry of the same request only', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'D', email: 'd@example.com' };
    expect((await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body })).statusCode).toBe(201);
    // As if the first request had crashed before committing: its work is gone, its key still running with the
    // lock run out.
    await pg.query(`DELETE FROM visitor.person WHERE email = 'd@example.com'`);
    await pg.query(
      `UPDATE visitor.idempotency_key SET state = 'running', response_status = NULL, response_body = NULL,
              locked_until = now() - interval '1 second' WHERE key = $1`,
      [idempotencyKey],
    );
    const other = await call(t.app, 'POST', '/v1/people', {
      key,
      idempotencyKey,
      body: { name: 'D2', email: 'd2@example.com' },
    });
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const retry = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await peopleNamed('d@example.com')).toBe(1); // it ran again
    const replay = await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body });
    expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
  });

  it('expired keys are purged after 24 hours and may be used again', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'E', email: 'e@example.com' };
    expect((await call(t.app, 'POST', '/v1/people', { key, idempotencyKey, body })).statusCode).toBe(201);
    await pg.query(
      `UPDATE visitor.idempotency_key SET created_at = created_at - interval '25 hours' WHERE key = $1`,
      [idempotencyKey],
    );
    const reuse = await call(t.app, 'POST', '/v1/people', {
      key,
      idempotencyKey,
      body: { name: 'E2', email: 'e2@example.com' },
    });
    expect(reuse.statusCode).toBe(201);
    await pg.query(
      `UPDATE visitor.idempotency_key SET created_at = created_at - interval '25 hours' WHERE key = $1`,
      [idempotencyKey],
    );
    expect(await t.app.get(PeriodicScheduler).run('idempotency.purge')).toBeGreaterThanOrEqual(1);
    expect(
      (await pg.query(`SELECT 1 FROM visitor.idempotency_key WHERE key = $1`, [idempotencyKey])).rowCount,
    ).toBe(0);
  });
});
