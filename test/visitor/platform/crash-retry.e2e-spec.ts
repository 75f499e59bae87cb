import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { startAppProcess } from '../../support/app-process';
import { call, createOrg } from '../../support/platform-fixtures';

/**
 * A process that dies in the middle of an idempotent POST: the retry (on another instance, same database and
 * Redis prefix) neither makes the change twice nor waits a minute for the dead request's claim.
 */
/** The retries poll; the rate limit is not what is tested. */
const UNLIMITED = '100000';

describe('a retry after a crash (Idempotency-Key)', () => {
  let t: TestApp;
  let pg: Client;
  let key: string;
  let org: string;
  let site: string;
  let host: string;
  let phone = 7_100_000;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: UNLIMITED } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    const o = await createOrg(t.app, 'pro');
    org = o.id;
    site = o.sites.find((s) => !s.livemode)!.id;
    key = await o.key();
    const person = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Kofi Host', email: 'kofi.host@crash.test' },
    });
    expect(person.statusCode).toBe(201);
    host = person.json().id;
  }, 60_000);
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  const invitation = () => ({
    site_id: site,
    host_id: host,
    type: 'meeting',
    visitor: { name: 'Ama Crash', phone: `+23324${++phone}` },
  });
  const count = async (sql: string, id?: string) =>
    Number((await pg.query(sql, id ? [org, id] : [org])).rows[0].count);
  const visitsOf = (phoneNumber: string) =>
    pg
      .query(
        `SELECT v.id FROM visitor.visit v JOIN visitor.visitor p ON p.id = v.visitor_id
          WHERE v.organisation_id = $1 AND p.phone = $2`,
        [org, phoneNumber],
      )
      .then((r) => r.rows.map((row: { id: string }) => row.id));

  /** Sends the POST to a child process that dies at `point`; resolves when the child has exited. */
  async function crashAt(
    point: 'BEFORE' | 'AFTER',
    idempotencyKey: string,
    body: unknown,
    path = '/v1/visits',
  ): Promise<void> {
    const child = await startAppProcess(t.db.url, {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      TEST_MODE_RATE_PER_MINUTE: UNLIMITED,
      [`GATEHOUSE_FAULT_${point}_COMMIT`]: 'exit',
    });
    const answer = await fetch(`${child.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'idempotency-key': idempotencyKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    }).then(
      (r) => `answered ${r.status}`,
      () => 'no answer',
    );
    expect(answer).toBe('no answer');
    expect(await child.exited).toBe(70);
  }

  /** Retries until the answer is not 409 `conflict` (the dead request's claim), for at most `ms`. */
  async function retryUntilAnswered(idempotencyKey: string, body: unknown, ms: number, path = '/v1/visits') {
    const end = Date.now() + ms;
    for (;;) {
      const res = await call(t.app, 'POST', path, { key, idempotencyKey, body });
      if (res.statusCode !== 409 || Date.now() > end) return res;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('a crash after the commit: the retry replays the same visit, with exactly one pass', async () => {
    const idempotencyKey = randomUUID();
    const body = invitation();
    await crashAt('AFTER', idempotencyKey, body);
    const [visit] = await visitsOf(body.visitor.phone);
    expect(visit).toBeDefined(); // the change committed before the crash

    const retry = await retryUntilAnswered(idempotencyKey, body, 20_000);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toMatchObject({ id: visit, status: 'expected', host_id: host });
    expect(await visitsOf(body.visitor.phone)).toEqual([visit]);
    expect(
      await count(
        `SELECT count(*) FROM visitor.visit_pass WHERE organisation_id = $1 AND visit_id = $2`,
        visit,
      ),
    ).toBe(1);
    expect(
      await count(
        `SELECT count(*) FROM visitor.event WHERE organisation_id = $1 AND type = 'visit.created'
            AND body::jsonb->'data'->'object'->>'id' = $2`,
        visit,
      ),
    ).toBe(1);
    // and again: the same stored response
    const again = await call(t.app, 'POST', '/v1/visits', { key, idempotencyKey, body });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.json()).toEqual(retry.json());
  }, 120_000);

  it('a crash before the commit: the dead request’s claim is taken over within 5 s and the visit made once', async () => {
    const idempotencyKey = randomUUID();
    const body = invitation();
    await crashAt('BEFORE', idempotencyKey, body);
    const died = Date.now();
    expect(await visitsOf(body.visitor.phone)).toEqual([]); // rolled back with the process

    const retry = await retryUntilAnswered(idempotencyKey, body, 20_000);
    const waited = Date.now() - died;
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined(); // it ran, for the first time
    expect(waited).toBeLessThan(5_000);
    expect(await visitsOf(body.visitor.phone)).toEqual([retry.json().id]);
  }, 120_000);

  it('a crash after the commit of a pass resend: the retry replays it, and exactly one new pass was made', async () => {
    const made = await call(t.app, 'POST', '/v1/visits', {
      key,
      idempotencyKey: randomUUID(),
      body: invitation(),
    });
    expect(made.statusCode).toBe(201);
    const visit = made.json().id as string;
    const passes = () =>
      count(`SELECT count(*) FROM visitor.visit_pass WHERE organisation_id = $1 AND visit_id = $2`, visit);
    expect(await passes()).toBe(1);

    const idempotencyKey = randomUUID();
    const path = `/v1/visits/${visit}/resend-pass`;
    await crashAt('AFTER', idempotencyKey, {}, path);
    expect(await passes()).toBe(2); // the resend committed before the crash

    const retry = await retryUntilAnswered(idempotencyKey, {}, 20_000, path);
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([202, 'true']);
    expect(retry.json()).toMatchObject({ id: visit, status: 'expected' });
    expect(await passes()).toBe(2);
  }, 120_000);
});
