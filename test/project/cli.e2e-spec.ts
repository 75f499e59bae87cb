import { execFile, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../harness';

const run = promisify(execFile);
const root = join(__dirname, '../..');
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['dist/src/cli.js', ...args], { cwd: root, env: { ...process.env, ...env } });
/** A failed run's { code, stdout, stderr }. */
const fails = (args: string[], env: Record<string, string> = {}) =>
  cli(args, env).then(
    () => {
      throw new Error(`gatehouse ${args.join(' ')} succeeded`);
    },
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe('gatehouse CLI (commander)', () => {
  it("--help and every command's --help fit 80 columns and list the forms and exit codes", async () => {
    const top = await cli(['--help']);
    const names = [...top.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['demo', 'keys', 'migrate', 'org', 'seed', 'support']));
    expect(top.stdout).toContain('Exit codes:');
    for (const name of names.filter((n) => n !== 'help')) {
      const { stdout } = await cli([name, '--help']);
      expect(stdout).toContain(`gatehouse ${name}`);
      const long = stdout.split('\n').filter((l) => l.length > 80);
      expect({ name, long }).toEqual({ name, long: [] });
    }
    const long = top.stdout.split('\n').filter((l) => l.length > 80);
    expect(long).toEqual([]);
    // one CLI start per command, in series: on a busy 2-core machine that is more than jest's default 30 s (the
    // test waits for each to finish; nothing here is timed, the CLI's speed is measured by `npm run bench -- cli`)
  }, 180_000);

  it('reports every missing argument at once, exit code 2', async () => {
    const org = await fails(['org', 'create', '--plan', 'pro']);
    expect(org.code).toBe(2);
    expect(org.stderr).toContain('missing --name <value>, --country <value>, --time-zone <value>');
    const keys = await fails(['keys', 'revoke']);
    expect(keys.stderr).toContain('missing --org <value>, <key_id>');
    expect(keys.stdout).toBe('');
    const unknown = await fails(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it("npx gatehouse prints only the command's JSON on stdout and does not rebuild a current dist/", async () => {
    const stamp = join(root, 'dist/.build-stamp');
    const npmCli = () => spawnSync('npx', ['--no', 'gatehouse', 'config'], { cwd: root, encoding: 'utf8' });
    expect(npmCli().status).toBe(0); // builds only if a source changed since the suite's build
    const before = [statSync(stamp).mtimeMs, statSync(join(root, 'dist/src/cli.js')).mtimeMs];
    const npm = npmCli();
    expect(npm.status).toBe(0);
    expect(JSON.parse(npm.stdout)).toMatchObject({ port: expect.any(Number) });
    expect([statSync(stamp).mtimeMs, statSync(join(root, 'dist/src/cli.js')).mtimeMs]).toEqual(before);
  });

  describe('seed --scale', () => {
    let db: TestDatabase;
    let t: TestApp;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => {
      await t?.close();
      await db?.drop();
    });

    it('seeds the visitor area too, with progress lines on stderr when not a terminal', async () => {
      const { stdout, stderr } = await cli(['seed', '--scale', '2'], { DATABASE_URL: db.url });
      expect(JSON.parse(stdout).counts.visitor).toEqual({
        organisations: 2,
        people: 20,
        visitors: 100,
        visits: 200,
        events: 200,
      });
      expect(stderr).toContain('visitor organisations: 2/2 (100%)');
      expect(stderr).toContain('content tables: 11/11 (100%)');
      // What was seeded is what the API serves.
      t = await bootTestApp({ db });
      const key = JSON.parse(
        (
          await cli(
            [
              'keys',
              'create',
              '--org',
              'bulk-1',
              '--name',
              'k',
              '--kind',
              'secret',
              '--mode',
              'test',
              '--scopes',
              'visits:read,events:read',
            ],
            { DATABASE_URL: db.url },
          )
        ).stdout,
      ).key;
      const get = (url: string) =>
        t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      const visits = await get('/v1/visits?limit=100');
      expect(visits.statusCode).toBe(200);
      expect(visits.json().data).toHaveLength(100);
      const events = await get('/v1/events?limit=5');
      expect(events.statusCode).toBe(200);
      expect(events.json().data[0]).toMatchObject({
        type: 'visit.created',
        data: { object: { id: expect.stringMatching(/^visit_/) } },
      });
      // Seeding again at the same scale adds nothing.
      const again = JSON.parse((await cli(['seed', '--scale', '2'], { DATABASE_URL: db.url })).stdout);
      expect(again.counts.visitor.organisations).toBe(0);
    }, 120_000);
  });
});
