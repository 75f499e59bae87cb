import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import Redis from 'ioredis';
import { flushRedisPrefix } from '../../src/redis/redis-prefix';
import { Client } from 'pg';
import { parse } from 'yaml';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../harness';
import { AppProcess, ChildOfApp, startAppProcess, startWorkerProcess } from '../support/app-process';
import { createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';
import { createEndpoint } from '../support/webhook-fixtures';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { OrganisationsService } from '../../src/visitor/organisations/organisations.service';

/**
 * The production shape without Docker (issue 34 item 3): two API processes (RUN_WORKER=false) and two workers
 * (`dist/src/worker.js`) on one PostgreSQL database and one Redis key prefix. Visits are created at both APIs
 * while one worker and then one API are killed (kill -9). What a user of the fleet can see:
 * - a rate limit is one allowance for the fleet, not one per process;
 * - each periodic round (the sweepers: the ones scheduled under NODE_ENV=test) runs in one worker only;
 * - every event reaches the webhook receiver, and no two attempts of one delivery are open there at once;
 * - every visit's pass is sent exactly once;
 * - every request a surviving API answered succeeded; the ones in flight on the killed API got no answer, and the
 *   same request retried with its Idempotency-Key at the other API completes, with one visit per request.
 * Waits are on conditions (generous: a busy 2-core machine), never on the clock.
 */
/** Visits created after the API is killed (the load runs until then, however long that takes). */
const AFTER_KILL = 30;
/** Concurrent clients of the APIs. */
const CLIENTS = 6;
/** The live-mode allowance (requests a minute) of the organisation whose rate limit is checked. */
const LIMIT = 20;
const SWEEP_MS = 250;
const API_NAME = (i: number) => `gatehouse-fleet-api-${i}`;
/** `url` with its sessions named `name` (pg takes the URL's application_name over the app's own). */
function named(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

type Outcome =
  | { api: number; idempotencyKey: string; body: VisitBody; status: number; id: string | null }
  | { api: number; idempotencyKey: string; body: VisitBody; status: null; error: string };

interface VisitBody {
  site_id: string;
  host_id: string;
  type: 'meeting';
  visitor: { name: string; phone: string };
}

describe('the fleet: two APIs and two workers on one PostgreSQL and one Redis', () => {
  const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
  const env = {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: prefix,
    WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
    // An attempt's claim lasts this plus 5 s: a dead worker's attempts are sent again by the other after it.
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_SWEEP_MS: String(SWEEP_MS),
    // Two attempts at a time per worker: three open at the receiver means both workers have one open.
    WEBHOOK_CONCURRENCY: '2',
    TEST_MODE_RATE_PER_MINUTE: '100000',
    // Five pools on one server that other test files share (max_connections 100).
    DATABASE_POOL_SIZE: '4',
    NO_COLOR: '1',
    // The APIs serve /v1 (and /health) only: what the load uses, and a quicker start.
    SURFACES: 'visitor',
  };
  const redis = new Redis(env.REDIS_URL);
  let receiver: WebhookReceiver;
  let db: TestDatabase;
  let pg: Client;
  let fixtures: TestApp;
  const apis: AppProcess[] = [];
  const workers: ChildOfApp[] = [];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    // Each process is kept as soon as it is up, and every start is waited for before a failed one is reported, so
    // afterAll ends every process that started.
    const kept =
      <T extends ChildOfApp>(list: T[], i: number) =>
      (p: T) =>
        void (list[i] = p);
    const starts = await Promise.allSettled([
      // The fixtures' app (organisations, keys, the endpoint through the real services), in this process.
      bootTestApp({ db, env: { ...env, RUN_WORKER: 'false' } }).then((app) => void (fixtures = app)),
      // Each API's PostgreSQL sessions carry its name (the URL's application_name), so the test sees its waits.
      ...[0, 1].map((i) => startAppProcess(named(db.url, API_NAME(i)), env, 120_000).then(kept(apis, i))),
      // Debug lines: each worker logs every periodic round it runs (PeriodClaim).
      ...[0, 1].map((i) =>
        startWorkerProcess(db.url, { ...env, LOG_LEVEL: 'debug' }, 120_000).then(kept(workers, i)),
      ),
    ]);
    const failed = starts.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }, 240_000);
  afterAll(async () => {
    const all = [...apis, ...workers].filter(Boolean);
    for (const p of all) p.child.kill('SIGKILL');
    await Promise.all(all.map((p) => p.exited));
    await fixtures?.close();
    await pg?.end();
    await db?.drop();
    await receiver?.stop();
    await flushRedisPrefix(redis, prefix);
    redis.disconnect();
  });

  const send = (api: number, method: 'GET' | 'POST', path: string, key: string, o: RequestInit = {}) =>
    fetch(`${apis[api].url}${path}`, {
      ...o,
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...o.headers },
    });

  /** One `POST /v1/visits`; `status: null` when no whole answer came (the connection failed or was cut). */
  async function createVisit(
    api: number,
    key: string,
    idempotencyKey: string,
    body: VisitBody,
  ): Promise<Outcome> {
    let status: number;
    let text: string;
    try {
      const res = await send(api, 'POST', '/v1/visits', key, {
        headers: { 'idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      const cause = (e as Error & { cause?: Error }).cause;
      return { api, idempotencyKey, body, status: null, error: `${(e as Error).message}: ${cause?.message}` };
    }
    return { api, idempotencyKey, body, status, id: (JSON.parse(text) as { id?: string }).id ?? null };
  }

  /** Rounds of each periodic task each worker ran, from its debug lines: task → period → workers. */
  function rounds(): Map<string, Map<number, number[]>> {
    const byTask = new Map<string, Map<number, number[]>>();
    workers.forEach((w, i) => {
      for (const m of stripVTControlCharacters(w.output()).matchAll(/\[([\w.-]+)\] period (\d+) /g)) {
        const periods = byTask.get(m[1]) ?? new Map<number, number[]>();
        periods.set(Number(m[2]), [...(periods.get(Number(m[2])) ?? []), i]);
        byTask.set(m[1], periods);
      }
    });
    return byTask;
  }

  it('a kill -9 of one API and one worker under load: one rate limit, one run per round, every event and pass', async () => {
    const org = await createOrg(fixtures.app, 'pro');
    const key = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    await createEndpoint(
      fixtures.app,
      fixtures.config,
      { organisationId: org.id, livemode: false },
      receiver.url('/held/fleet'),
      ['*'],
    );
    // Another organisation, its live mode limited to LIMIT requests a minute, for the shared rate limit.
    const limited = await createOrg(fixtures.app, 'pro');
    await fixtures.app
      .get(OrganisationsService)
      .update(limited.id, { rate_limit_per_minute: LIMIT }, { type: 'operator', id: 'test' });
    const limitedKey = await limited.key({ mode: 'live' });

    const person = await send(0, 'POST', '/v1/people', key, {
      headers: { 'idempotency-key': randomUUID() },
      body: JSON.stringify({ name: 'Efua Host', email: 'efua@fleet.test' }),
    });
    expect(person.status).toBe(201);
    const host = ((await person.json()) as { id: string }).id;

    // The load: CLIENTS clients create visits, each at the next API still up (round robin), until AFTER_KILL
    // more have been started after the API is killed.
    const up = [true, true];
    const outcomes: Outcome[] = [];
    let started = 0;
    let stopAt = Infinity;
    let turn = 0;
    const client = async () => {
      while (started < stopAt) {
        const n = started++;
        const next = turn++ % 2;
        const api = up[next] ? next : 1 - next;
        const body: VisitBody = {
          site_id: site,
          host_id: host,
          type: 'meeting',
          visitor: { name: `Guest ${n}`, phone: `+2332448${String(n).padStart(5, '0')}` },
        };
        outcomes.push(await createVisit(api, key, randomUUID(), body));
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, client));
    let cut: Received[];
    let workerKilledAt = 0;
    try {
      // While the load runs, with both APIs up: LIMIT live requests spread over both use the one allowance.
      const remaining: string[] = [];
      for (let i = 0; i < LIMIT; i++) {
        const res = await send(i % 2, 'GET', '/v1/sites', limitedKey);
        expect(res.status).toBe(200);
        remaining.push(res.headers.get('ratelimit-remaining')!);
      }
      expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)));
      const refused = await Promise.all([0, 1].map((api) => send(api, 'GET', '/v1/sites', limitedKey)));
      expect(refused.map((r) => r.status)).toEqual([429, 429]);

      // A worker is killed while it has an attempt open at the receiver: three are open, so each worker has one
      // (each has at most two), and the receiver answers none until the worker is gone. Then an API is killed while
      // requests are in flight on it.
      await until(
        async () => outcomes.length >= 30 && receiver.received.filter((r) => !r.endedAt).length >= 3,
        120_000,
      );
      receiver.pause();
      cut = receiver.received.filter((r) => !r.endedAt);
      workers[0].child.kill('SIGKILL');
      await workers[0].exited;
      receiver.resume();
      workerKilledAt = Date.now();
      await until(async () => outcomes.length >= 60, 120_000);
      // Visit inserts wait on a lock the test holds, so the kill finds requests that API 0 has taken and not
      // answered (an answer in flight when the process dies is still read by the client): it is killed once one of
      // its sessions waits on the lock, and the lock is let go after it has died.
      const lock = new Client({ connectionString: db.url });
      lock.on('error', () => undefined); // a failure shows in its next query
      await lock.connect();
      try {
        await lock.query('BEGIN');
        await lock.query('LOCK TABLE visitor.visit IN EXCLUSIVE MODE');
        await until(
          async () =>
            (
              await pg.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
                [API_NAME(0)],
              )
            ).rows[0].n > 0,
          120_000,
        );
        up[0] = false;
        apis[0].child.kill('SIGKILL');
        await apis[0].exited;
        stopAt = started + AFTER_KILL;
      } finally {
        await lock.query('COMMIT').finally(() => lock.end());
      }
    } catch (e) {
      stopAt = started; // a failed step above ends the load too
      await load;
      throw e;
    }
    await load;
    const VISITS = stopAt;

    // Every answer was a success; every request without one was sent to the killed API.
    const answered = outcomes.filter((o) => o.status !== null);
    const lost = outcomes.filter((o) => o.status === null);
    expect(answered.filter((o) => o.status !== 201)).toEqual([]);
    expect(lost.length).toBeGreaterThan(0); // the kill interrupted requests, it did not come after them
    expect(lost.filter((o) => o.api !== 0)).toEqual([]);
    // Retried with the same Idempotency-Key at the API still up, each completes (after the dead request's
    // claim lapses: 409 until then, which a client retries).
    for (const o of lost) {
      const retry = await until(async () => {
        const r = await createVisit(1, key, o.idempotencyKey, o.body);
        return r.status !== 409 && r;
      }, 60_000);
      expect({ phone: o.body.visitor.phone, status: retry.status }).toEqual({
        phone: o.body.visitor.phone,
        status: 201,
      });
      outcomes.push(retry);
    }
    // One visit per request, the one its answer named.
    const { rows: visits } = await pg.query<{ id: string; phone: string }>(
      `SELECT v.id, p.phone FROM visitor.visit v JOIN visitor.visitor p ON p.id = v.visitor_id
        WHERE v.organisation_id = $1 AND NOT v.livemode`,
      [org.id],
    );
    expect(visits).toHaveLength(VISITS);
    const visitOf = new Map(visits.map((v) => [v.phone, v.id]));
    expect(visitOf.size).toBe(VISITS);
    const named = outcomes.filter((o) => o.status === 201) as Extract<Outcome, { id: string | null }>[];
    expect(named.filter((o) => visitOf.get(o.body.visitor.phone) !== o.id)).toEqual([]);

    // Every pass sent, once: one sent pass, one message (the test outbox) and one pass.sent event per visit.
    await until(
      async () =>
        (
          await pg.query(
            `SELECT count(*)::int AS n FROM visitor.visit_pass WHERE organisation_id = $1 AND status = 'sent'`,
            [org.id],
          )
        ).rows[0].n === VISITS,
      150_000,
    );
    const { rows: perVisit } = await pg.query<{ id: string; passes: number; messages: number; sent: number }>(
      `SELECT v.id,
              (SELECT count(*)::int FROM visitor.visit_pass s WHERE s.visit_id = v.id) AS passes,
              (SELECT count(*)::int FROM visitor.message m WHERE m.related_id = v.id) AS messages,
              (SELECT count(*)::int FROM visitor.event e WHERE e.organisation_id = v.organisation_id
                  AND e.type = 'pass.sent' AND e.body::jsonb #>> '{data,object,id}' = v.id) AS sent
         FROM visitor.visit v WHERE v.organisation_id = $1`,
      [org.id],
    );
    expect(perVisit.filter((v) => v.passes !== 1 || v.messages !== 1 || v.sent !== 1)).toEqual([]);

    // Every event delivered: each delivery succeeded (the receiver answered 2xx) and the receiver has the event.
    const { rows: events } = await pg.query<{ id: string }>(
      `SELECT id FROM visitor.event WHERE organisation_id = $1 AND NOT livemode`,
      [org.id],
    );
    expect(events).toHaveLength(2 * VISITS + 1); // person.created, and visit.created and pass.sent per visit
    await until(
      async () =>
        (
          await pg.query(
            `SELECT count(*)::int AS n FROM visitor.webhook_delivery d JOIN visitor.event e ON e.id = d.event_id
              WHERE e.organisation_id = $1 AND d.status = 'succeeded'`,
            [org.id],
          )
        ).rows[0].n === events.length,
      150_000,
    );
    const attempts = new Map<string, Received[]>();
    for (const r of receiver.on('/held/fleet')) {
      const id = r.headers['webhook-id'] as string;
      attempts.set(id, [...(attempts.get(id) ?? []), r]);
    }
    expect(events.filter((e) => !attempts.has(e.id))).toEqual([]);
    // No two attempts of one event were open at the receiver at the same time.
    const overlapping = [...attempts].filter(([, tries]) =>
      tries.some((a, i) =>
        tries.some((b, j) => i !== j && a.arrivedAt <= b.arrivedAt && (a.endedAt ?? Infinity) > b.arrivedAt),
      ),
    );
    expect(overlapping).toEqual([]);
    // The killed worker's open attempts went unanswered: their events were sent again, by the other worker.
    expect(
      cut.filter((r) => attempts.get(r.headers['webhook-id'] as string)!.length > 1).length,
    ).toBeGreaterThan(0);

    // Each periodic round ran once across the fleet: both workers ran rounds, the survivor on alone after the kill.
    const byTask = rounds();
    expect([...byTask.keys()].sort()).toEqual(['visits.sweep-passes', 'webhooks.sweep']);
    for (const [task, periods] of byTask) {
      expect({ task, twice: [...periods].filter(([, by]) => by.length > 1) }).toEqual({ task, twice: [] });
      const by = new Set([...periods.values()].flat());
      expect({ task, by: [...by].sort() }).toEqual({ task, by: [0, 1] });
      const after = [...periods].filter(([p]) => p * SWEEP_MS > workerKilledAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every(([, w]) => w.length === 1 && w[0] === 1)).toBe(true);
    }
  }, 400_000);
});

describe('docker-compose.yml', () => {
  it('runs the fleet’s shape: two api replicas behind the proxy, two workers, one database and Redis', () => {
    const root = join(__dirname, '../..');
    type Service = {
      deploy?: { replicas?: number };
      command?: string[];
      environment?: Record<string, string>;
      ports?: string[];
      volumes?: string[];
    };
    const { services } = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, Service>;
    };
    const { api, worker, proxy } = services;
    expect([api.deploy?.replicas, worker.deploy?.replicas]).toEqual([2, 2]);
    expect([api.environment?.RUN_WORKER, worker.environment?.RUN_WORKER]).toEqual(['false', 'true']);
    // The image's processes, api and worker, run with the node flags of `npm start` and `npm run start:worker`:
    // on their command lines (NODE_OPTIONS refuses --no-allocation-site-pretenuring).
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const flags = (args: string[]) => args.filter((a) => a.startsWith('--'));
    const startFlags = flags(scripts.start.split(/\s+/));
    expect(startFlags).toContain('--no-allocation-site-pretenuring');
    expect(flags(scripts['start:worker'].split(/\s+/))).toEqual(startFlags);
    expect(worker.command).toEqual(['node', ...startFlags, 'dist/src/worker.js']);
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(cmd).toEqual(['node', ...startFlags, 'dist/src/main.js']);
    expect(dockerfile).not.toMatch(/^ENV .*\bNODE_OPTIONS=/m);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'ENCRYPTION_KEY'])
      expect({ name, worker: worker.environment?.[name] }).toEqual({ name, worker: api.environment?.[name] });
    // Only the proxy publishes a port; its config sends every request to the `api` service.
    expect(Object.entries(services).filter(([, s]) => s.ports)).toEqual([['proxy', proxy]]);
    const [conf, target] = proxy.volumes![0].split(':');
    expect(target).toBe('/etc/nginx/nginx.conf');
    expect(readFileSync(join(root, conf), 'utf8')).toMatch(
      /set \$api http:\/\/api:3000;\s+proxy_pass \$api;/,
    );
  });
});
