import { spawn, ChildProcess } from 'node:child_process';
import { bootTestApp, CapturingLogger, TestApp } from './harness';
import { call, createOrg } from './support/platform-fixtures';
import { AccountsService } from '../src/visitor/accounts/accounts.service';

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
    await new Promise((r) => setTimeout(r, 1500)); // several reconnect attempts
    const warnings = () =>
      logger.lines.filter((l) => l.level === 'warn' && String(l.message).includes('is unreachable'));
    expect(warnings()).toHaveLength(1);

    startRedis();
    await until(ready);
    expect(logger.text()).toContain('is reachable again');

    redis!.kill('SIGKILL');
    await until(async () => !(await ready()));
    expect(warnings()).toHaveLength(2);

    startRedis();
    await until(ready);
  });
});

describe('rate limits while Redis is down', () => {
  const logger = new CapturingLogger();
  let t: TestApp;

  beforeAll(async () => {
    // Nothing listens on port 1: Redis is unreachable from the start. A test-mode allowance of 2 a minute
    // shows that the limiter lets requests through rather than counting them.
    t = await bootTestApp({
      env: { REDIS_URL: 'redis://127.0.0.1:1', RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '2' },
      logger,
    });
  });
  afterAll(() => t.close());

  const warnings = () =>
    logger.lines.filter(
      (l) => l.level === 'warn' && String(l.message).includes('rate limits are not enforced'),
    );

  it('/v1 fails open: requests with a valid key succeed beyond the allowance, with one warning in the log', async () => {
    const key = await (await createOrg(t.app, 'free')).key();
    for (let i = 0; i < 5; i++) {
      const res = await call(t.app, 'GET', '/v1/organisation', { key });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined(); // nothing was counted, so nothing is claimed
    }
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
