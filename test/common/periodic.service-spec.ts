import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import { bootServiceContext, createTestDatabase, ServiceContext, TestDatabase } from '../harness';
import { until } from '../support/until';
import { PeriodicScheduler } from '../../src/common/periodic';
import {
  PeriodicProbe,
  PeriodicProbeModule,
  PROBE_FORMER_NAME,
  PROBE_INTERVAL_MS,
  PROBE_TABLE,
  PROBE_TABLE_DDL,
  PROBE_TASK,
} from '../fixtures/periodic-probe.module';

/**
 * The claim script of the version before tasks were renamed (`<prefix>:periodic:<class name>` and its lease),
 * verbatim: what a process of that version runs during a rolling deploy.
 */
const PREVIOUS_TAKE = `
local last = tonumber(redis.call('GET', KEYS[1]) or '-1')
if last >= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
return 1`;

/**
 * Periodic tasks (purges, sweepers, the no-show job) run once per period across every worker process that
 * shares the Redis key prefix, and not at all in processes without the worker. A probe task records each run
 * in PostgreSQL with the period it was claimed for; waits are on recorded runs, never on the clock.
 */
describe('periodic tasks across a fleet', () => {
  let db: TestDatabase;
  let pg: Client;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const apps: ServiceContext[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await pg.query(PROBE_TABLE_DDL);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  afterAll(async () => {
    await pg.end();
    await db.drop();
    redis.disconnect();
  });

  async function boot(env: Record<string, string>): Promise<{ app: ServiceContext; instance: string }> {
    const app = await bootServiceContext({
      db,
      env: { SURFACES: 'docs', ...env },
      extraModules: [PeriodicProbeModule],
    });
    apps.push(app);
    return { app, instance: app.app.get(PeriodicProbe).instance };
  }

  const periodNow = () => Math.floor(Date.now() / PROBE_INTERVAL_MS);

  /** Runs per period from `from` on, of the given instances. */
  async function runsPerPeriod(instances: string[], from = 0): Promise<Map<number, string[]>> {
    const { rows } = await pg.query<{ period: string; instance: string }>(
      `SELECT period, instance FROM ${PROBE_TABLE} WHERE instance = ANY($1) AND period >= $2 ORDER BY period`,
      [instances, from],
    );
    const map = new Map<number, string[]>();
    for (const r of rows) map.set(Number(r.period), [...(map.get(Number(r.period)) ?? []), r.instance]);
    return map;
  }

  async function keys(pattern: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found.sort();
  }

  /** Periods run more than once. */
  const repeated = (runs: Map<number, string[]>, except: (p: number) => boolean = () => false) =>
    [...runs].filter(([p, by]) => by.length !== 1 && !except(p));

  it('two workers sharing Redis run each period once between them; after a flush and when one stops, runs go on', async () => {
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const a = await boot({ REDIS_KEY_PREFIX: prefix, RUN_WORKER: 'true' });
    const b = await boot({ REDIS_KEY_PREFIX: prefix, RUN_WORKER: 'true' });
    const both = [a.instance, b.instance];

    // Both processes are up from this period on: six of their periods, each run exactly once.
    const together = periodNow() + 1;
    const shared = await until(async () => {
      const runs = await runsPerPeriod(both, together);
      return runs.size >= 6 && runs;
    }, 30_000);
    expect(repeated(shared)).toEqual([]);
    expect(await keys(`${prefix}:periodic:*`)).toContain(`${prefix}:periodic:${PROBE_TASK}`);

    // Redis loses every claim: nothing needs restoring, the next periods are claimed again.
    const flushedFrom = periodNow();
    await redis.del(...(await keys(`${prefix}:periodic:*`)));
    const flushedTo = periodNow();
    const afterFlush = await until(async () => {
      const runs = await runsPerPeriod(both, flushedTo + 1);
      return runs.size >= 3 && runs;
    }, 30_000);
    expect(repeated(afterFlush)).toEqual([]);
    // A period claimed while the keys were deleted may run twice (the runs are idempotent); no other may.
    const all = await runsPerPeriod(both);
    expect(repeated(all, (p) => p >= flushedFrom && p <= flushedTo)).toEqual([]);

    // One worker stops: the other runs the following periods alone.
    await a.app.close();
    apps.splice(apps.indexOf(a.app), 1);
    const alone = periodNow() + 1;
    const afterStop = await until(async () => {
      const runs = await runsPerPeriod(both, alone);
      return runs.size >= 3 && runs;
    }, 30_000);
    expect([...afterStop.values()].flat()).toEqual(Array(afterStop.size).fill(b.instance));
  }, 120_000);

  it('a run that outlasts its period is not overlapped by another worker: the fleet skips periods meanwhile', async () => {
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const a = await boot({ REDIS_KEY_PREFIX: prefix, RUN_WORKER: 'true' });
    const b = await boot({ REDIS_KEY_PREFIX: prefix, RUN_WORKER: 'true' });
    for (const w of [a, b]) w.app.app.get(PeriodicProbe).durationMs = 2.5 * PROBE_INTERVAL_MS;
    const from = periodNow() + 1;
    const { rows } = await until(async () => {
      const r = await pg.query<{ started_at: Date; ended_at: Date; period: string }>(
        `SELECT period, started_at, ended_at FROM ${PROBE_TABLE}
          WHERE instance = ANY($1) AND period >= $2 AND ended_at IS NOT NULL ORDER BY started_at`,
        [[a.instance, b.instance], from],
      );
      return r.rows.length >= 3 && r;
    }, 30_000);
    const overlapping = rows.filter((r, i) => i > 0 && r.started_at < rows[i - 1].ended_at);
    expect(overlapping).toEqual([]);
  }, 120_000);

  it('a process of the previous version (claiming under the former key) and one of this version never both run a period', async () => {
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const current = await boot({ REDIS_KEY_PREFIX: prefix, RUN_WORKER: 'true' });
    const previous = `previous-${randomBytes(4).toString('hex')}`;
    const [key, lease] = [
      `${prefix}:periodic:${PROBE_FORMER_NAME}`,
      `${prefix}:periodic:${PROBE_FORMER_NAME}:running`,
    ];
    // The previous version's process asks for even periods just before they start (it wins them: this version
    // must then stay out) and for odd ones just after (this version has taken them: it must stay out).
    const from = periodNow() + 2;
    let stop = false;
    const previousProcess = (async () => {
      for (let p = from; !stop; p++) {
        const at = p * PROBE_INTERVAL_MS + (p % 2 === 0 ? -0.4 : 0.4) * PROBE_INTERVAL_MS;
        await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
        const won = await redis.eval(PREVIOUS_TAKE, 2, key, lease, String(p), previous, '60000', '5000');
        if (won !== 1) continue;
        await pg.query(
          `INSERT INTO ${PROBE_TABLE} (period, instance, started_at, ended_at)
           VALUES ($1, $2, clock_timestamp(), clock_timestamp())`,
          [p, previous],
        );
        await redis.del(lease);
      }
    })();
    const runs = await until(async () => {
      const r = await runsPerPeriod([current.instance, previous], from);
      return r.size >= 8 && r;
    }, 30_000);
    stop = true;
    await previousProcess;
    expect(repeated(await runsPerPeriod([current.instance, previous], from))).toEqual([]);
    const ran = new Set([...runs.values()].flat());
    expect(ran).toEqual(new Set([current.instance, previous]));
  }, 120_000);

  it('shutting down waits for a round under way: it ends before the database closes', async () => {
    const { app, instance } = await boot({
      REDIS_KEY_PREFIX: `ghtest:${randomBytes(6).toString('hex')}`,
      RUN_WORKER: 'false',
    });
    app.app.get(PeriodicProbe).durationMs = 800;
    const round = app.app.get(PeriodicScheduler).run(PROBE_TASK, periodNow());
    await until(
      async () =>
        (await pg.query(`SELECT 1 FROM ${PROBE_TABLE} WHERE instance = $1`, [instance])).rowCount === 1,
      30_000,
    );
    await apps.splice(apps.indexOf(app), 1)[0].close();
    expect(await round).toBe(1);
    const { rows } = await pg.query(`SELECT ended_at FROM ${PROBE_TABLE} WHERE instance = $1`, [instance]);
    expect(rows).toEqual([{ ended_at: expect.any(Date) }]);
  }, 60_000);

  it('a process with RUN_WORKER=false schedules nothing: no run, no Redis key', async () => {
    const idlePrefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const workerPrefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const idle = await boot({ REDIS_KEY_PREFIX: idlePrefix, RUN_WORKER: 'false' });
    const worker = await boot({ REDIS_KEY_PREFIX: workerPrefix, RUN_WORKER: 'true' });

    // The worker's runs are the clock: three of its periods pass with the idle process up.
    const from = periodNow() + 1;
    await until(async () => (await runsPerPeriod([worker.instance], from)).size >= 3, 30_000);
    expect(await runsPerPeriod([idle.instance])).toEqual(new Map());
    // Nothing under its prefix but the queues' `meta` records, which their producers write on connecting.
    expect((await keys(`${idlePrefix}:*`)).filter((k) => !/:bull:[^:]+:meta$/.test(k))).toEqual([]);
    // …where the worker's claims are seen.
    expect(await keys(`${workerPrefix}:periodic:*`)).toContain(`${workerPrefix}:periodic:${PROBE_TASK}`);
  }, 120_000);

  it('a worker that cannot reach Redis runs its periodic tasks itself', async () => {
    // Nothing listens on port 1.
    const cut = await boot({ REDIS_URL: 'redis://127.0.0.1:1', RUN_WORKER: 'true' });
    const from = periodNow() + 1;
    const runs = await until(async () => {
      const r = await runsPerPeriod([cut.instance], from);
      return r.size >= 3 && r;
    }, 30_000);
    expect(repeated(runs)).toEqual([]);
  }, 120_000);
});
