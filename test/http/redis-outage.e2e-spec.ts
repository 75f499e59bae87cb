import { spawn, ChildProcess } from 'node:child_process';
import { bootTestApp, CapturingLogger, TestApp } from '../harness';
import { call, createOrg } from '../support/platform-fixtures';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not reached in time');
}

describe('Redis outage', () => {
  const port = 26000 + Math.floor(Math.random() * 3000);
  const logger = new CapturingLogger();
  let t: TestApp;
  let redis: ChildProcess | null = null;

  const ready = async () => (await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200;
  const startRedis = () => {
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
  };

  beforeAll(async () => {
    t = await bootTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` }, logger });
  });
  afterAll(async () => {
    await t.close();
    redis?.kill('SIGKILL');
  });

  it('serves without Redis, is not ready, warns once, and recovers by itself when Redis comes and goes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'not_ready', checks: { postgres: 'up', redis: 'down' } });
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/stats' })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1500)); // several reconnect attempts; the workers' connections fail too
    // The README's promise: one warning per outage (with the workers running), one line when Redis is back.
    const warnings = () => logger.lines.filter((l) => l.level === 'warn');
    const back = () => logger.lines.filter((l) => String(l.message).includes('is reachable again'));
    expect(warnings().map((l) => l.message)).toEqual([expect.stringContaining('is unreachable')]);

    startRedis();
    await until(ready);
    await until(async () => back().length === 1);

    redis!.kill('SIGKILL');
    await until(async () => !(await ready()));
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/stats' })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1].message).toContain('is unreachable');

    startRedis();
    await until(ready);
    await until(async () => back().length === 2);
    expect(warnings()).toHaveLength(2);
  });
});

describe('rate limits while Redis is down', () => {
  const logger = new CapturingLogger();
  let t: TestApp;

  beforeAll(async () => {
    // Nothing listens on port 1: Redis is unreachable from the start. A test-mode allowance of 2 a minute and the
    // published keyless allowance of 30 a minute must still hold, counted in this process.
    t = await bootTestApp({
      env: { REDIS_URL: 'redis://127.0.0.1:1', RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '2' },
      logger,
    });
  });
  afterAll(() => t.close());

  // The README promises one warning per outage: RedisService's, whatever else notices the outage.
  const warnings = () => logger.lines.filter((l) => l.level === 'warn');

  it('/v1 allowances hold per process: the third request of a 2-a-minute allowance is 429', async () => {
    const key = await (await createOrg(t.app, 'free')).key();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call(t.app, 'GET', '/v1/organisation', { key });
      statuses.push(res.statusCode);
      expect(res.headers['ratelimit-limit']).toBe('2');
      if (res.statusCode === 429) {
        expect(res.json()).toMatchObject({ code: 'rate_limited' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(warnings().map((l) => l.message)).toEqual([expect.stringContaining('is unreachable')]);
  });

  it('/public/v1 keyless allowance holds per process: 30 of 35 requests a minute are answered', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/public/v1/stats',
        remoteAddress: '203.0.113.35',
      });
      statuses.push(res.statusCode);
      expect(res.headers['ratelimit-limit']).toBe('30');
    }
    expect(statuses).toEqual([...Array(30).fill(200), ...Array(5).fill(429)]);
    // Another address has its own allowance.
    const other = await t.app.inject({
      method: 'GET',
      url: '/public/v1/stats',
      remoteAddress: '203.0.113.36',
    });
    expect(other.statusCode).toBe(200);
    expect(warnings()).toHaveLength(1);
  });

  it('console sign-in fails closed: guesses are still limited, counted in the process', async () => {
    await t.app
      .get(AccountsService)
      .create(
        (await createOrg(t.app, 'pro')).id,
        { email: 'owner@outage.test', name: 'O', role: 'owner', password: 'correct horse battery staple' },
        { type: 'operator', id: 't' },
      );
    const attempt = (password: string, remoteAddress = '198.51.100.7') =>
      t.app.inject({
        method: 'POST',
        url: '/console/session',
        payload: { email: 'owner@outage.test', password },
        remoteAddress,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt(`guess-${i}`)).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    // The guessing client is locked out, correct password included (a client that has not failed may still sign in).
    const blocked = await attempt('correct horse battery staple');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800); // the 15-minute e-mail window
    expect(warnings()).toHaveLength(1);
  });
});
