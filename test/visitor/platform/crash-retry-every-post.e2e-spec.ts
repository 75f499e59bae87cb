import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { startAppProcess } from '../../support/app-process';
import { call, createOrg } from '../../support/platform-fixtures';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { BUILDERS, CREATES, expectStatus, OPERATIONS, World } from '../tenancy/tenancy-fixtures';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The retries poll; the rate limit is not what is tested. */
const UNLIMITED = '100000';

/**
 * POSTs that change nothing a retry could repeat, each with the reason (checked: calling it leaves every row of
 * the organisation as it was). They are not sent through the crash point, which fires only after a commit.
 */
const CHANGES_NOTHING: Record<string, string> = {
  'POST /webhook-endpoints/{whep_id}/test':
    'sends a signed sample event to the endpoint now and reports the answer; stores nothing',
};

let people = 0;
/**
 * POSTs without a path id whose body the tenancy tables (CREATES) do not make, each making what it needs in A's
 * test mode.
 */
const BODIES: Record<string, (w: World) => Promise<unknown>> = {
  // a person with a shift every day from midnight: the clock-in is late today (or on the day before)
  'POST /test-helpers/attendance/late-clock-in': async (w) => {
    const person = await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, {
      name: 'Yaw Late',
      email: `yaw.${++people}@crash.test`,
    });
    await w.app.get(AttendanceService).saveShift({ organisationId: w.a.id, livemode: false }, null, {
      name: `Day ${people}`,
      site_id: w.aSite,
      start_time: '00:00',
      end_time: '23:59',
      grace_minutes: 0,
      days_of_week: [1, 2, 3, 4, 5, 6, 7],
      person_ids: [person.id],
    });
    return { person_id: person.id };
  },
  'POST /test-helpers/sandbox/reset': async () => ({}),
};

/** POSTs whose answer names no object (the check that it names one of the change's rows does not apply). */
const ANSWERS_WITHOUT_IDS: Record<string, string> = {
  'POST /test-helpers/sandbox/reset': 'the change is a deletion: the answer counts the rows it deleted',
};

/**
 * Tables whose rows record that a request was made (by whom, how often), not the change a POST makes: a retry
 * writes them as any request does.
 */
const NOT_THE_CHANGE = new Set(['idempotency_key', 'api_key', 'api_key_use_day', 'request_log']);

/**
 * Every POST of the served /v1 contract, through the test-only crash point: the process is killed right after the
 * commit of the POST's change, before its answer reaches the socket. The retry with the same Idempotency-Key (on
 * another instance, same database) must replay the answer (same status, `Idempotent-Replayed: true`, the same
 * body on every replay) and change nothing: every row of the organisation reads the same before and after it.
 * A POST added to the contract fails here until the tenancy fixture tables can make it (or it is listed above
 * with a reason).
 */
describe('a retry after a crash replays every POST of the contract', () => {
  let t: TestApp;
  let pg: Client;
  let posts: { name: string; path: string; status: number }[];
  let tables: string[];
  const w = {} as World;

  beforeAll(async () => {
    w.receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: {
        RUN_WORKER: 'false',
        WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        TEST_MODE_RATE_PER_MINUTE: UNLIMITED,
      },
    });
    w.app = t.app;
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as Json;
    posts = Object.entries(doc.paths as Record<string, Json>)
      .filter(([, item]) => item.post)
      .map(([path, item]) => ({
        name: `POST ${path}`,
        path,
        status: Number(Object.keys(item.post.responses as Json).find((s) => /^2\d\d$/.test(s))),
      }));
    tables = (
      await pg.query(
        `SELECT table_name FROM information_schema.columns
          WHERE table_schema = 'visitor' AND column_name = 'organisation_id' ORDER BY 1`,
      )
    ).rows
      .map((r: { table_name: string }) => r.table_name)
      .filter((name: string) => !NOT_THE_CHANGE.has(name));

    w.a = await createOrg(t.app, 'pro', 2);
    w.b = await createOrg(t.app, 'pro');
    [w.aTest, w.aLive, w.bTest] = await Promise.all([
      w.a.key({ mode: 'test' }),
      w.a.key({ mode: 'live' }),
      w.b.key({ mode: 'test' }),
    ]);
    [w.aSite, w.aApprovalSite] = w.a.sites.filter((s) => !s.livemode).map((s) => s.id);
    w.bSite = w.b.sites.find((s) => !s.livemode)!.id;
    await pg.query(`UPDATE visitor.site SET requires_host_approval = true WHERE id = $1`, [w.aApprovalSite]);
    w.aHost = (
      await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, {
        name: 'Ama Crash',
        email: 'ama@crash.test',
      })
    ).id;
    w.bHost = (
      await expectStatus(w, w.bTest, 'POST', '/v1/people', 201, { name: 'Kojo B', email: 'kojo@b.test' })
    ).id;
    await BUILDERS.btype_id(w); // the booking types POST /bookings books
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await t?.close();
    await w.receiver?.stop();
  });

  /** Every row of organisation A (outside NOT_THE_CHANGE), as text, by table. */
  async function rowsOfA(): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const table of tables) {
      const { rows } = await pg.query(
        `SELECT x::text AS row FROM visitor.${table} x
          WHERE x.organisation_id = $1 ${table === 'audit_event' ? `AND x.action NOT LIKE 'api_key.%'` : ''}
          ORDER BY 1`,
        [w.a.id],
      );
      out[table] = rows.map((r: { row: string }) => r.row);
    }
    return out;
  }

  /** The path and body of the POST, on objects made for it in A's test mode. */
  async function prepare(name: string, path: string): Promise<{ url: string; body: unknown }> {
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    if (params.length === 0) {
      const create = CREATES[name];
      if (!create && BODIES[name]) return { url: `/v1${path}`, body: await BODIES[name](w) };
      if (!create)
        throw new Error(`${name}: no body in the fixture tables (test/visitor/tenancy/tenancy-fixtures.ts)`);
      return { url: `/v1${path}`, body: create.body(w, 'a') };
    }
    const op = OPERATIONS[name] ?? {};
    let url = `/v1${path}`;
    for (const p of params) {
      const build = BUILDERS[p];
      if (!build) throw new Error(`${name}: no builder for {${p}} in the fixture tables`);
      const made = await build(w, op.variant);
      url = url.replace(`{${p}}`, made.params[p]);
    }
    return { url, body: op.body ? op.body(w) : {} };
  }

  /** Sends the POST to a child process that dies right after the commit; resolves when the child has exited. */
  async function crashAfterCommit(url: string, idempotencyKey: string, body: unknown): Promise<string> {
    const child = await startAppProcess(t.db.url, {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
      TEST_MODE_RATE_PER_MINUTE: UNLIMITED,
      WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
      GATEHOUSE_FAULT_AFTER_COMMIT: 'exit',
    });
    const answer = await fetch(`${child.url}${url}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${w.aTest}`,
        'idempotency-key': idempotencyKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    }).then(
      async (r) => `answered ${r.status} ${await r.text()}`,
      () => 'no answer',
    );
    if (answer !== 'no answer') child.child.kill('SIGKILL');
    const code = await child.exited;
    return answer === 'no answer' ? `exited ${code}` : answer;
  }

  /** Retries until the answer is not 409 `conflict` (the dead request's claim), for at most 20 s. */
  async function retry(url: string, idempotencyKey: string, body: unknown) {
    const end = Date.now() + 20_000;
    for (;;) {
      const res = await call(t.app, 'POST', url, { key: w.aTest, idempotencyKey, body });
      if (res.statusCode !== 409 || !res.body.includes('in progress') || Date.now() > end) return res;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('lists every POST: each goes through the crash point, or changes nothing (with a reason)', () => {
    expect(posts.length).toBeGreaterThan(20);
    for (const name of Object.keys(CHANGES_NOTHING)) expect(posts.map((p) => p.name)).toContain(name);
  });

  it('every POST that changes state: one change, and the retry replays its answer', async () => {
    const problems: string[] = [];
    for (const { name, path, status } of posts) {
      let prepared: { url: string; body: unknown };
      try {
        prepared = await prepare(name, path);
      } catch (e) {
        problems.push((e as Error).message);
        continue;
      }
      const { url, body } = prepared;
      if (CHANGES_NOTHING[name]) {
        const before = await rowsOfA();
        const res = await call(t.app, 'POST', url, { key: w.aTest, body });
        if (res.statusCode !== status) problems.push(`${name}: answered ${res.statusCode} ${res.body}`);
        else if (JSON.stringify(await rowsOfA()) !== JSON.stringify(before))
          problems.push(`${name}: listed as changing nothing, but it changed rows`);
        continue;
      }
      const idempotencyKey = randomUUID();
      const before = await rowsOfA();
      const crashed = await crashAfterCommit(url, idempotencyKey, body);
      if (crashed !== 'exited 70') {
        problems.push(`${name}: the process did not die after a commit (${crashed.slice(0, 300)})`);
        continue;
      }
      const changed = await rowsOfA();
      if (JSON.stringify(changed) === JSON.stringify(before)) {
        problems.push(`${name}: nothing committed before the crash`);
        continue;
      }
      const first = await retry(url, idempotencyKey, body);
      if (first.statusCode !== status || first.headers['idempotent-replayed'] !== 'true') {
        problems.push(
          `${name}: the retry answered ${first.statusCode} (replayed: ${String(first.headers['idempotent-replayed'])}), not a replay of ${status}: ${first.body.slice(0, 300)}`,
        );
        continue;
      }
      const after = await rowsOfA();
      for (const table of tables)
        if (JSON.stringify(after[table]) !== JSON.stringify(changed[table]))
          problems.push(`${name}: the retry changed visitor.${table} again`);
      const again = await call(t.app, 'POST', url, { key: w.aTest, idempotencyKey, body });
      if (again.statusCode !== status || again.body !== first.body)
        problems.push(`${name}: a second replay differs from the first`);
      // the answer names what the change made (ids of rows the crashed request wrote)
      const ids = [...first.body.matchAll(/"(?:[a-z_]+_)?id":"([a-z]+_[A-Za-z0-9]+)"/g)].map((m) => m[1]);
      const written = JSON.stringify(changed);
      if (!ANSWERS_WITHOUT_IDS[name] && (ids.length === 0 || !ids.some((id) => written.includes(id))))
        problems.push(
          `${name}: the replayed answer names no object of the change: ${first.body.slice(0, 200)}`,
        );
    }
    expect(problems).toEqual([]);
  }, 900_000);
});
