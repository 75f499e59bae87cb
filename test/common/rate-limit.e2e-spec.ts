import { randomBytes } from 'node:crypto';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../harness';
import { call, createOrg } from '../support/platform-fixtures';

describe('/v1 rate limits', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Two instances on one database and one Redis key space: they must share the counters.
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    a = await bootTestApp({ db, env: { RUN_WORKER: 'false', REDIS_KEY_PREFIX: prefix } });
    b = await bootTestApp({ db, env: { RUN_WORKER: 'false', REDIS_KEY_PREFIX: prefix } });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  it('the 101st test-mode request in a minute is 429 with Retry-After; every response has RateLimit headers', async () => {
    const key = await (await createOrg(a.app, 'free')).key();
    for (let i = 1; i <= 100; i++) {
      const res = await call(a.app, 'GET', '/v1/organisation', { key });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('100');
      expect(res.headers['ratelimit-remaining']).toBe(String(100 - i));
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const res = await call(a.app, 'GET', '/v1/organisation', { key });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('two keys of one organisation and mode share the allowance, across two instances', async () => {
    const org = await createOrg(a.app, 'pro');
    const k1 = await org.key();
    const k2 = await org.key();
    for (let i = 0; i < 50; i++)
      expect((await call(a.app, 'GET', '/v1/sites', { key: k1 })).statusCode).toBe(200);
    for (let i = 0; i < 50; i++)
      expect((await call(b.app, 'GET', '/v1/sites', { key: k2 })).statusCode).toBe(200);
    expect((await call(b.app, 'GET', '/v1/sites', { key: k1 })).statusCode).toBe(429);
    expect((await call(a.app, 'GET', '/v1/sites', { key: k2 })).statusCode).toBe(429);
    // The live mode of the same organisation has its own allowance (Pro: 600).
    const live = await call(a.app, 'GET', '/v1/sites', { key: await org.key({ mode: 'live' }) });
    expect(live.statusCode).toBe(200);
    expect(live.headers['ratelimit-limit']).toBe('600');
  });

  it('live allowances follow the plan', async () => {
    const growth = await createOrg(a.app, 'growth');
    const ent = await createOrg(a.app, 'enterprise');
    const g = await call(a.app, 'GET', '/v1/sites', { key: await growth.key({ mode: 'live' }) });
    expect(g.headers['ratelimit-limit']).toBe('100'); // counted even though the plan then refuses it
    const e = await call(a.app, 'GET', '/v1/sites', { key: await ent.key({ mode: 'live' }) });
    expect(e.headers['ratelimit-limit']).toBe('3000');
  });
});
