import { ChildProcess, execFile, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { createTestDatabase, TestDatabase } from '../harness';
import { freePort } from '../support/app-process';

const run = promisify(execFile);

function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}

describe('process start and stop (compiled service)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('refuses to start with a malformed setting, naming the variable', async () => {
    const err = await run(process.execPath, ['dist/src/main.js'], {
      env: { ...process.env, PORT: 'eighty', REDIS_URL: 'ftp://x' },
    }).catch((e) => e);
    expect(err.code).toBe(78);
    expect(err.stderr).toContain('PORT must be a whole number');
    expect(err.stderr).toContain('REDIS_URL must be a URL');
  });

  it('refuses to start in production without secrets', async () => {
    const err = await run(process.execPath, ['dist/src/main.js'], {
      env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: db.url },
    }).catch((e) => e);
    expect(err.code).toBe(78);
    expect(err.stderr).toContain('OPERATOR_TOKEN must be set in production');
  });

  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const p = start({ DATABASE_URL: db.url, PORT: String(port), SEED_ON_FIRST_START: 'false' });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok);
      // A request whose body is still arriving when the signal comes.
      const socket = connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const body = '{"purpose":"late"}';
      socket.write(
        `POST /v1/anything HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      let response = '';
      socket.on('data', (d) => (response += d));
      const closed = new Promise((r) => socket.once('close', r));
      await new Promise((r) => setTimeout(r, 200));
      p.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      socket.write(body.slice(5));
      await closed;
      expect(response).toMatch(/^HTTP\/1\.1 404 /);
      expect(response).toContain('application/problem+json');
      expect(response).toMatch(/svc-request-id: req_/i);
      const code = await p.exited;
      expect(p.output()).toContain('SIGTERM received');
      expect({ code, output: p.output() }).toMatchObject({ code: 0 });
    } finally {
      p.child.kill('SIGKILL');
    }
  });

  it('on a fresh database, first start seeds the demo and prints a key and sign-in that work', async () => {
    const fresh = await createTestDatabase();
    const port = await freePort();
    const p = start({ DATABASE_URL: fresh.url, PORT: String(port), SEED_ON_FIRST_START: 'true' });
    try {
      await waitFor(async () => /secret key +svc_sk_test_/.test(p.output()), 110_000);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok);
      const key = /secret key +(svc_sk_test_[0-9A-Za-z]+)/.exec(p.output())![1];
      const [, email, password] = /console sign-in +(\S+) \/ (\S+)/.exec(p.output())!;
      // A quiet start: no route-mapping lines at LOG_LEVEL=info, one block with the real URLs and port.
      expect(p.output()).not.toMatch(/Mapped \{|RouterExplorer|InstanceLoader/);
      expect(p.output()).toContain(`API reference   http://localhost:${port}/docs`);
      expect(p.output()).toContain(
        `curl -H "Authorization: Bearer ${key}" http://localhost:${port}/v1/organisation`,
      );
      expect(p.output()).not.toContain('<PORT>');
      expect(p.output().trim().split('\n').length).toBeLessThan(30);
      const org = await fetch(`http://127.0.0.1:${port}/v1/organisation`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(org.status).toBe(200);
      expect(await org.json()).toMatchObject({ name: 'Demo Front Door', plan: 'pro', livemode: false });
      const session = await fetch(`http://127.0.0.1:${port}/console/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(session.status).toBe(200);
      expect(await session.json()).toMatchObject({ email, role: 'owner' });
      expect(session.headers.get('set-cookie')).toMatch(/^gh_session=gh_sess_/);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      // A second start on the same database seeds nothing and prints no new secrets.
      const again = start({ DATABASE_URL: fresh.url, PORT: String(port), SEED_ON_FIRST_START: 'true' });
      try {
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok);
        expect(again.output()).not.toContain('secret key');
        expect(again.output()).toContain('Gatehouse is ready');
        again.child.kill('SIGTERM');
        expect(await again.exited).toBe(0);
      } finally {
        again.child.kill('SIGKILL');
      }
    } finally {
      p.child.kill('SIGKILL');
      await fresh.drop();
    }
  }, 180_000);

  it('LOG_LEVEL=debug shows the route-mapping lines', async () => {
    const port = await freePort();
    const p = start({
      DATABASE_URL: db.url,
      PORT: String(port),
      SEED_ON_FIRST_START: 'false',
      LOG_LEVEL: 'debug',
    });
    try {
      await waitFor(async () => p.output().includes('Gatehouse is ready'), 60_000);
      expect(p.output()).toMatch(/Mapped \{\/v1\/visits, POST\} route/);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
    }
  }, 90_000);

  it('starts and serves without Redis, reports not ready', async () => {
    const port = await freePort();
    const p = start({
      DATABASE_URL: db.url,
      PORT: String(port),
      REDIS_URL: 'redis://127.0.0.1:1',
      SEED_ON_FIRST_START: 'false',
    });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'not_ready', checks: { postgres: 'up', redis: 'down' } });
      const api = await fetch(`http://127.0.0.1:${port}/public/v1/openapi.json`);
      expect(api.status).toBe(200);
      expect(p.output().match(/Redis at redis:\/\/127\.0\.0\.1:1.* is unreachable/g)).toHaveLength(1);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
    }
  });
});
