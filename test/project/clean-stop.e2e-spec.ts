import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/app-process';
import { until } from '../support/until';

const root = join(__dirname, '../..');

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/**
 * `npm start` on a fresh embedded PostgreSQL, stopped by a signal to npm (what Ctrl+C or a process manager does):
 * the server and the database stop, nothing listens on either port, npm exits, and no misleading warning is
 * logged. Starts the compiled service without its prestart build (`--ignore-scripts`; the suite built it).
 */
describe('clean stop of npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gh-stop-'));
  // As root the embedded PostgreSQL runs as the `postgres` user, which must reach its data directory.
  chmodSync(dataDir, 0o777);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function start(): Promise<{
    npm: ChildProcess;
    out: () => string;
    port: number;
    pgPort: number;
    env: NodeJS.ProcessEnv;
  }> {
    const [port, pgPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_PG_DIR: join(dataDir, 'pg'),
      EMBEDDED_PG_PORT: String(pgPort),
      SEED_ON_FIRST_START: 'false',
      LOG_LEVEL: 'info',
    };
    delete env.DATABASE_URL;
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    await until(async () => out.includes('Gatehouse is ready') || npm.exitCode !== null, 120_000);
    if (!out.includes('Gatehouse is ready')) {
      npm.kill('SIGKILL');
      throw new Error(`did not start:\n${out}`);
    }
    return { npm, out: () => out, port, pgPort, env };
  }

  /** `npx gatehouse …` (the built CLI) with the server's environment: { code, stdout, stderr }. */
  const gatehouse = (env: NodeJS.ProcessEnv, ...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, ['dist/src/cli.js', ...args], { cwd: root, env });
      let [stdout, stderr] = ['', ''];
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  it('a CLI command beside the running server uses its embedded database and leaves it running', async () => {
    const s = await start();
    try {
      const list = await gatehouse(s.env, 'org', 'list');
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject({ data: expect.any(Array) });
      const ready = await fetch(`http://127.0.0.1:${s.port}/health/ready`);
      expect(ready.status).toBe(200);
      // The same data directory on another port cannot start a second PostgreSQL (its lock file): one clear line,
      // never "gatehouse: undefined".
      const clash = await gatehouse({ ...s.env, EMBEDDED_PG_PORT: String(await freePort()) }, 'org', 'list');
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain('the embedded PostgreSQL did not start');
      expect(clash.stderr).toContain('set DATABASE_URL');
      expect(clash.stderr).not.toContain('undefined');
      expect((await fetch(`http://127.0.0.1:${s.port}/health/ready`)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => s.npm.once('exit', resolve));
      s.npm.kill('SIGTERM');
      await exited;
    }
  }, 180_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`${signal} to npm stops node and the embedded PostgreSQL`, async () => {
      const s = await start();
      expect(await listening(s.port)).toBe(true);
      expect(await listening(s.pgPort)).toBe(true);
      const exited = new Promise<number | null>((resolve) => s.npm.once('exit', (code) => resolve(code)));
      s.npm.kill(signal);
      await exited;
      await until(async () => !(await listening(s.port)) && !(await listening(s.pgPort)), 30_000).catch(
        () => {
          throw new Error(`still listening after ${signal}:\n${s.out()}`);
        },
      );
      expect(s.out()).toContain(`${signal} received`);
      expect(s.out()).toContain('stopped');
      // oidc-provider's one line at import on Node 20 (its maintainers support Node 22+; see docs/decisions.md) is
      // true and expected; nothing else may warn.
      const rest = s.out().replace(/^oidc-provider WARNING: Unsupported runtime\..*$/m, '');
      expect(rest).not.toMatch(/unreachable|WARN|ERROR/);
    }, 180_000);
});
