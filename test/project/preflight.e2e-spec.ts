import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support/app-process';

const root = join(__dirname, '../..');

/** Runs a command to its end and returns its exit code and output (stdout and stderr, interleaved). */
function run(cmd: string, args: string[], env: Record<string, string | undefined>) {
  return new Promise<{ code: number | null; out: string }>((done) => {
    const child = spawn(cmd, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => done({ code, out }));
  });
}

/** The lines a person reads (blank lines and npm's own banners aside). */
const lines = (out: string) => out.split('\n').filter((l) => l.trim() !== '');

/**
 * What a newcomer sees when a service the tests or the server need is missing: one line naming it and the fix,
 * before any test runs or anything starts, not hundreds of failures or a stack trace.
 */
describe('preflight', () => {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  // A file that would pass: the run must stop before it, at the global setup.
  const anyTest = 'test/project/engines.e2e-spec.ts';

  it('npm test without Redis says so in one line with the fix, and runs no test', async () => {
    const port = await freePort();
    const r = await run(process.execPath, [jest, anyTest], {
      REDIS_URL: `redis://:s3cret@127.0.0.1:${port}`,
    });
    expect(r.code).toBe(1);
    const said = lines(r.out);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      new RegExp(`^npm test: cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}`),
    );
    expect(said[0]).toContain('Start it (redis-server --daemonize yes) or set REDIS_URL');
    expect(r.out).not.toContain('s3cret');
    expect(r.out).not.toMatch(/PASS|FAIL|Tests:/);
  }, 60_000);

  it('npm test with an unreachable DATABASE_URL says so in one line with the fix', async () => {
    const port = await freePort();
    const r = await run(process.execPath, [jest, anyTest], {
      DATABASE_URL: `postgres://postgres:pw@127.0.0.1:${port}/postgres`,
    });
    expect(r.code).toBe(1);
    const said = lines(r.out);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^npm test: cannot reach the PostgreSQL of DATABASE_URL=postgres:\/\/postgres:\*\*\*@127/,
    );
    expect(said[0]).toContain('unset it to use the embedded PostgreSQL');
    expect(r.out).not.toMatch(/PASS|FAIL|Tests:/);
  }, 60_000);

  describe('npm start on a port that is taken', () => {
    let taken: Server;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      taken = createServer();
      await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
    });
    afterAll(() => new Promise((r) => taken.close(r)));

    it('says so in one line, with no stack trace, and exits 1', async () => {
      const r = await run(process.execPath, [join(root, 'dist/src/main.js')], {
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: process.env.TEST_ADMIN_DATABASE_URL,
        RUN_WORKER: 'false',
        SEED_ON_FIRST_START: 'false',
      });
      expect(r.code).toBe(1);
      // oidc-provider's known Node 20 line ("Unsupported runtime") may precede it (README, decisions).
      const said = lines(r.out).filter(
        (l) => !/oidc-provider|Unsupported runtime|supported runtime/i.test(l),
      );
      expect(said).toEqual([
        `Gatehouse cannot listen on 127.0.0.1:${port}: the port is taken (is Gatehouse already running?); stop that process or set PORT to a free port, e.g. PORT=${port + 1} npm start`,
      ]);
    }, 60_000);
  });
});
