import { spawn, ChildProcess } from 'node:child_process';
import { bootTestApp, CapturingLogger, TestApp } from './harness';

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
