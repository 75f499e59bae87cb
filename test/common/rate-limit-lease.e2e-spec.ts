import { randomBytes } from 'node:crypto';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../harness';
import { RedisService } from '../../src/redis/redis.service';

/**
 * Large allowances are leased (RedisThrottlerStorage): an instance takes up to 1 % of the limit per Redis round
 * trip. Two instances on one Redis, a keyless allowance of 1,000 a minute per address: together they never admit
 * more than the limit, lose at most one lease to each other, and each counts its own requests down one by one.
 */
describe('leased rate-limit counters', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
  const env = { RUN_WORKER: 'false', REDIS_KEY_PREFIX: prefix, PUBLIC_KEYLESS_RATE_PER_MINUTE: '1000' };

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await bootTestApp({ db, env });
    b = await bootTestApp({ db, env });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  it('never admits more than the limit across instances, and counts down exactly within one', async () => {
    const ip = '10.91.0.1';
    const get = (t: TestApp) => t.app.inject({ method: 'GET', url: '/public/v1/stats', remoteAddress: ip });
    for (let i = 1; i <= 600; i++) {
      const res = await get(a);
      expect({ i, status: res.statusCode }).toEqual({ i, status: 200 });
      expect(res.headers['ratelimit-remaining']).toBe(String(1000 - i));
    }
    // One unit on the first trip, then leases of 1 % (10): 60 round trips for 600 requests, and the shared
    // counter holds the unspent rest of the last lease.
    const redis = a.app.get(RedisService).client;
    expect(Number(await redis.get(`${prefix}:rl:pub:ip:${ip}`))).toBe(1 + 60 * 10);

    let admitted = 600;
    for (const t of [b, a, b, a]) {
      for (;;) {
        const res = await get(t);
        if (res.statusCode === 429) break;
        expect(res.statusCode).toBe(200);
        admitted += 1;
      }
    }
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(1000 - 10);
    const last = await get(b);
    expect(last.statusCode).toBe(429);
    expect(last.headers['ratelimit-remaining']).toBe('0');
  });

  it('admits the whole allowance to concurrent requests, each told a different remaining count', async () => {
    const ip = '10.91.0.2';
    const get = () => a.app.inject({ method: 'GET', url: '/public/v1/stats', remoteAddress: ip });
    const remaining: number[] = [];
    for (;;) {
      // 32 at once: requests that find the lease spent go to Redis together, and every unit they take is used.
      const wave = await Promise.all(Array.from({ length: 32 }, get));
      for (const res of wave) {
        if (res.statusCode === 200) remaining.push(Number(res.headers['ratelimit-remaining']));
        else expect(res.statusCode).toBe(429);
      }
      if (wave.every((res) => res.statusCode === 429)) break;
    }
    expect(remaining).toHaveLength(1000);
    expect(new Set(remaining).size).toBe(1000);
    expect(Math.min(...remaining)).toBe(0);
    expect(Math.max(...remaining)).toBe(999);
  });
});
