/** What the benchmarks share: a throw-away database, peak memory, autocannon runs, direct running. */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import Redis from 'ioredis';
import { Client } from 'pg';
import type { INestApplicationContext } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { cliLogger, createCliContext } from '../src/cli/cli.module';
import { loadConfig } from '../src/config/config';
import { newId } from '../src/common/ids';
import { createDatabaseIfMissing, runMigrations } from '../src/database/database-setup';
import { flushRedisPrefix } from '../src/redis/redis-prefix';
import type { platformServices } from '../src/visitor/visitor.command';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/**
 * Seconds of load, at CONNECTIONS, that every side gets before it is measured (BENCH_WARMUP_SECONDS, default 5).
 * A bench measures a process in its steady state, as a server that has run for a while is: a Nest app just started
 * is still compiling its hot paths and sizing its heap, and a bare handler has less code to warm, so a short warm-up
 * flattered the baseline (after 1 s of warming, the campaign list's app CPU per request fell round by round, 0.35,
 * 0.31 and 0.28 ms, while the bare handler's stayed at 0.25).
 */
export const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);

/**
 * The node flags `npm start` runs the service with (package.json's `start` script: a larger young generation, see
 * docs/decisions.md), so a bench measures the app as it is run. Every process a bench starts gets them, baselines
 * too. BENCH_RUNTIME_FLAGS replaces them (`none` for none) to compare.
 */
export const RUNTIME_FLAGS: string[] = (() => {
  const override = process.env.BENCH_RUNTIME_FLAGS;
  if (override !== undefined) return override === 'none' ? [] : override.split(' ').filter(Boolean);
  const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
})();

/** Peak resident memory (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new, migrated database on the server of DATABASE_URL (default: local PostgreSQL), dropped by `drop()`. */
export async function benchDatabase(prefix: string): Promise<BenchDatabase> {
  const admin = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ghbench_${prefix}_${randomBytes(3).toString('hex')}`;
  const u = new URL(admin);
  u.pathname = `/${name}`;
  await createDatabaseIfMissing(admin, name);
  await runMigrations(u.toString());
  return {
    name,
    url: u.toString(),
    drop: async () => {
      const c = new Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      // The keys of the run's REDIS_KEY_PREFIX: the bench's app hands off a job per create (a pass) with no worker
      // to run it, and they would stay in Redis after the run.
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      await flushRedisPrefix(redis, `bench:${name}`).finally(() => redis.disconnect());
    },
  };
}

/**
 * The application's object graph as the CLI has it (no HTTP, no background work) on `db`, for fixtures made through
 * the real services (`platformServices(app)`); close it before measuring.
 */
export async function benchContext(db: BenchDatabase): Promise<INestApplicationContext> {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'error',
    RUN_WORKER: 'false',
    REDIS_KEY_PREFIX: `bench:${db.name}`,
  });
  return createCliContext(
    config,
    db.url,
    cliLogger((line) => console.error(line)),
  );
}

export interface LoadResult {
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  requests: number;
}

/** An autocannon run (CONNECTIONS for DURATION unless given); any non-2xx or error fails the bench. */
export async function load(opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    rps: Math.round(r.requests.average),
    mean: Number(r.latency.average.toFixed(2)),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
  };
}

/** Runs `main` when the file is executed directly (`node dist/bench/<name>.bench.js`). */
export function runIfMain(mod: NodeJS.Module, main: () => Promise<void>): void {
  if (require.main !== mod) return;
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}

/**
 * `bench/server.js` (the app with the bench baseline routes) in its own process on `port`, over `db`, with the
 * bench's settings and `env`; resolves when it listens. The caller stops it with `stopBenchServer`.
 */
export async function startBenchServer(
  db: BenchDatabase,
  port: number,
  env: Record<string, string>,
  server = 'server.js',
): Promise<ChildProcess> {
  const app = fork(join(__dirname, server), [], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(port),
      RUN_WORKER: 'false',
      SEED_ON_FIRST_START: 'false',
      LOG_LEVEL: 'error',
      REDIS_KEY_PREFIX: `bench:${db.name}`,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // BENCH_CPU_PROF=<dir>: write a CPU profile of the app (open it in Chrome DevTools). BENCH_NODE_ARGS: more
    // flags for the app's node (e.g. --trace-gc, which NODE_OPTIONS refuses).
    execArgv: [
      ...RUNTIME_FLAGS,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  await new Promise<void>((resolve, reject) => {
    app.once('message', () => resolve());
    app.once('exit', (code) => reject(new Error(`app exited ${code}`)));
  });
  return app;
}

export async function stopBenchServer(app: ChildProcess): Promise<void> {
  app.kill('SIGTERM');
  await new Promise((r) => app.once('exit', r));
}

/**
 * An Enterprise organisation with 10 sites (two gates each) and a rate limit the bench cannot reach, so every
 * request is counted in Redis but none is refused.
 */
export async function benchEnterpriseOrg(s: ReturnType<typeof platformServices>) {
  const operator = { type: 'operator' as const, id: 'bench' };
  const { organisation } = await s.orgs.create(
    {
      name: 'Bench Org',
      plan: 'enterprise',
      country: 'GH',
      time_zone: 'Africa/Accra',
      sites: Array.from({ length: 10 }, (_, i) => ({
        name: `Site ${i}`,
        time_zone: 'Africa/Accra',
        gates: ['Main', 'Side'],
      })),
    },
    operator,
  );
  await s.orgs.update(organisation.id, { rate_limit_per_minute: 100_000_000 }, operator);
  return organisation;
}

/**
 * A Pro organisation with one site (its test-mode id returned), a host in test mode and a test secret key with
 * `scopes`: the tenant of the visit, booking and front-desk benches.
 */
export async function benchProOrg(
  ds: DataSource,
  s: ReturnType<typeof platformServices>,
  name: string,
  scopes: string[],
): Promise<{ id: string; site: string; host: string; key: string }> {
  const operator = { type: 'operator' as const, id: 'bench' };
  const { organisation, sites } = await s.orgs.create(
    {
      name,
      plan: 'pro',
      country: 'GH',
      time_zone: 'Africa/Accra',
      sites: [{ name: 'HQ', time_zone: 'Africa/Accra', gates: ['Main'] }],
    },
    operator,
  );
  const host = newId('person');
  await ds.query(
    `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, can_host, active, created_at, updated_at)
     VALUES ($1, $2, false, 'Bench Host', 'host@bench.test', true, true, now(), now())`,
    [host, organisation.id],
  );
  const { key } = await s.keys.create(
    organisation.id,
    { name: 'bench', kind: 'secret', mode: 'test', scopes },
    operator,
  );
  return { id: organisation.id, site: sites.find((x) => !x.livemode)!.id, host, key };
}

/**
 * `visits` test-mode visits of `org` (a Pro organisation from `benchProOrg`) and a tenth as many visitors, set-based
 * in chunks of 200,000: ids `visit_seed00000001`…, every status (three in seven `checked_out`, one in seven each
 * `cancelled`, `no_show`, `expected`, `checked_in`), one a minute up to now (created, updated and expected at the
 * same instant), then ANALYZE. The visits, console and MCP benches share it. Returns the seconds it took.
 */
export async function seedVisits(
  ds: DataSource,
  org: { id: string; site: string; host: string },
  visits: number,
): Promise<number> {
  const t0 = Date.now();
  const visitors = Math.max(1, Math.floor(visits / 10));
  await ds.query(
    `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, last_visit_at, created_at, updated_at)
     SELECT 'visitor_seed' || i, $1, false, 'Visitor ' || i, '+23320' || (1000000 + i), now(), now(), now()
       FROM generate_series(1, $2) i`,
    [org.id, visitors],
  );
  const CHUNK = 200_000;
  for (let from = 1; from <= visits; from += CHUNK)
    await ds.query(
      `INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id,
                                  purpose, pass_channels, expected_at, created_at, updated_at)
       SELECT 'visit_seed' || lpad(i::text, 8, '0'), $1, false,
              (ARRAY['checked_out','checked_out','checked_out','cancelled','no_show','expected','checked_in'])[1 + i % 7],
              'meeting', 'invitation', $2, $3, 'visitor_seed' || (1 + i % $6), 'Bench visit', '{sms}',
              now() - (($5 - i) * interval '60 seconds'), now() - (($5 - i) * interval '60 seconds'),
              now() - (($5 - i) * interval '60 seconds')
         FROM generate_series($4::int, LEAST($4::int + ${CHUNK - 1}, $5::int)) i`,
      [org.id, org.site, org.host, from, visits, visitors],
    );
  await ds.query('ANALYZE visitor.visit; ANALYZE visitor.visitor');
  return Number(((Date.now() - t0) / 1000).toFixed(1));
}

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat; null when unreadable. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in clock ticks of 10 ms
  } catch {
    return null;
  }
}

/**
 * A load result with the CPU it cost per request: the app's process, its PostgreSQL backends, and the Redis server
 * (whatever it served meanwhile: during a bench run, the app alone uses it).
 */
export type Measured = LoadResult & {
  app_cpu_ms: number | null;
  pg_cpu_ms: number | null;
  redis_cpu_ms: number | null;
};

/** The pid of the Redis server at REDIS_URL when it runs on this machine (its /proc entry readable), else null. */
async function localRedisPid(): Promise<number | null> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return pid > 0 && cpuMs(pid) !== null ? pid : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/**
 * `load` runs that also measure CPU per request of the app (`app`), of the PostgreSQL backends connected to `db`
 * and of the Redis server (on a local server, Linux /proc; a backend the pool closed during the run is not counted;
 * Redis is null when it runs elsewhere). `close()` ends the monitoring connection.
 */
export async function cpuMeter(
  db: BenchDatabase,
  app: ChildProcess,
): Promise<{
  measured(opts: autocannon.Options): Promise<Measured>;
  around<T extends LoadResult>(run: () => Promise<T>): Promise<T & Measured>;
  close(): Promise<void>;
}> {
  const admin = new Client({ connectionString: db.url });
  admin.on('error', () => undefined);
  await admin.connect();
  const backends = async () =>
    new Map(
      (
        (
          await admin.query(
            `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
            [db.name],
          )
        ).rows as { pid: number }[]
      ).map((r) => [r.pid, cpuMs(r.pid)]),
    );
  const perRequest = (ms: number | null, r: LoadResult) =>
    ms === null || r.requests === 0 ? null : Number((ms / r.requests).toFixed(3));
  const redisPid = await localRedisPid();
  const redisMs = () => (redisPid === null ? null : cpuMs(redisPid));
  async function around<T extends LoadResult>(run: () => Promise<T>): Promise<T & Measured> {
    const app0 = cpuMs(app.pid as number);
    const pg0 = await backends();
    const redis0 = redisMs();
    const r = await run();
    const app1 = cpuMs(app.pid as number);
    const redis1 = redisMs();
    let pg: number | null = 0;
    for (const [pid, ms] of await backends()) {
      if (ms === null || pg === null) pg = null;
      else pg += ms - (pg0.get(pid) ?? 0);
    }
    return {
      ...r,
      app_cpu_ms: perRequest(app0 === null || app1 === null ? null : app1 - app0, r),
      pg_cpu_ms: perRequest(pg, r),
      redis_cpu_ms: perRequest(redis0 === null || redis1 === null ? null : redis1 - redis0, r),
    };
  }
  return {
    around,
    measured: (opts) => around(() => load(opts)),
    close: () => admin.end(),
  };
}

/**
 * CPU per request on every server a side runs on (its own process, its PostgreSQL backends, Redis), for the app and
 * for its floor, and their quotient. On these benches' 2 cores both sides keep the cores nearly busy (server,
 * PostgreSQL, the load generator), so requests/s is about the cores' time over the CPU a request costs, and the
 * quotient is about the throughput ratio: it says how much CPU per request the app must shed to reach a ratio,
 * with figures that vary less than requests/s do on a busy machine. Null when a figure is unknown.
 */
export function cpuPerRequest(
  app: Measured,
  floor: Measured,
): { app_ms: number; floor_ms: number; floor_over_app: number } | null {
  const total = (m: Measured) =>
    m.app_cpu_ms === null || m.pg_cpu_ms === null || m.redis_cpu_ms === null
      ? null
      : m.app_cpu_ms + m.pg_cpu_ms + m.redis_cpu_ms;
  const a = total(app);
  const f = total(floor);
  if (a === null || f === null || a === 0) return null;
  return {
    app_ms: Number(a.toFixed(3)),
    floor_ms: Number(f.toFixed(3)),
    floor_over_app: Number((f / a).toFixed(3)),
  };
}

/** The line of a bench's results that gives `cpuPerRequest`. */
export function cpuPerRequestLine(c: ReturnType<typeof cpuPerRequest>, measuredRatio: number): string {
  return c === null
    ? 'CPU per request on all servers: unknown (a CPU figure could not be read: a server not on this machine, or a backend gone mid-run).'
    : `CPU per request on all servers (own process + PostgreSQL + Redis): app ${c.app_ms} ms, floor ${c.floor_ms} ms; floor / app ${c.floor_over_app} (the ratio at equal CPU time; measured ${measuredRatio}).`;
}

/** The median of `xs` (the mean of the middle two when their count is even). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The median of the figures of `xs` that are known (not null), to `digits` decimals; null when none is. */
export function medianOfKnown(xs: (number | null)[], digits = 2): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length === 0 ? null : Number(median(known).toFixed(digits));
}

/** Each figure of `runs` as its median over the runs, with the runs beside it. */
export function medianOf(runs: Measured[]): Measured & { rounds: Measured[] } {
  // A CPU figure is null for a round in which a backend closed; the median is then of the other rounds.
  const of = (f: (r: Measured) => number | null) => medianOfKnown(runs.map(f));
  return {
    rps: of((r) => r.rps)!,
    mean: of((r) => r.mean)!,
    p50: of((r) => r.p50)!,
    p99: of((r) => r.p99)!,
    requests: runs.reduce((a, r) => a + r.requests, 0),
    app_cpu_ms: of((r) => r.app_cpu_ms),
    pg_cpu_ms: of((r) => r.pg_cpu_ms),
    redis_cpu_ms: of((r) => r.redis_cpu_ms),
    rounds: runs,
  };
}

/**
 * `rounds` rounds of every run in `runs`, the order reversed every other round (so drift in the machine's speed
 * during the bench falls on every side alike); each run's results in the order of its rounds.
 */
export async function inAlternatingRounds<R extends Record<string, unknown>>(
  rounds: number,
  runs: { [K in keyof R]: () => Promise<R[K]> },
): Promise<{ [K in keyof R]: R[K][] }> {
  const names = Object.keys(runs) as (keyof R)[];
  const results = Object.fromEntries(names.map((n) => [n, []])) as unknown as { [K in keyof R]: R[K][] };
  for (let r = 0; r < rounds; r++)
    for (const n of r % 2 === 0 ? names : [...names].reverse()) results[n].push(await runs[n]());
  return results;
}

/** `inAlternatingRounds` of measured runs; each run's figures are the medians of its rounds. */
export async function alternating<K extends string>(
  rounds: number,
  runs: Record<K, () => Promise<Measured>>,
): Promise<Record<K, Measured & { rounds: Measured[] }>> {
  const results = await inAlternatingRounds<Record<K, Measured>>(rounds, runs);
  return Object.fromEntries((Object.keys(results) as K[]).map((n) => [n, medianOf(results[n])])) as Record<
    K,
    Measured & { rounds: Measured[] }
  >;
}

/** Rows of `organisation` in every table that has an organisation_id column, by table. */
export async function rowsOf(c: Client, organisation: string): Promise<Record<string, number>> {
  const tables = (
    await c.query(
      `SELECT table_schema || '.' || table_name AS t FROM information_schema.columns
        WHERE column_name = 'organisation_id' AND table_schema NOT IN ('pg_catalog', 'information_schema')
          AND (table_schema, table_name) IN (SELECT table_schema, table_name FROM information_schema.tables
                                              WHERE table_type = 'BASE TABLE')
        ORDER BY 1`,
    )
  ).rows as { t: string }[];
  const out: Record<string, number> = {};
  for (const { t } of tables)
    out[t] = Number(
      (await c.query(`SELECT count(*) AS n FROM ${t} WHERE organisation_id = $1`, [organisation])).rows[0].n,
    );
  return out;
}

/**
 * Rows written per created resource, by table: (after − before) of each table that changed, over that of `unit`
 * (the resource's own table). Exact whatever requests were still in flight when a run stopped.
 */
export function rowsPerCreate(
  before: Record<string, number>,
  after: Record<string, number>,
  unit: string,
): Record<string, number> {
  const created = Math.max(1, after[unit] - before[unit]);
  return Object.fromEntries(
    Object.keys(after)
      .filter((t) => after[t] !== before[t])
      .map((t) => [t, Number(((after[t] - before[t]) / created).toFixed(3))]),
  );
}

/**
 * Whether two `rowsPerCreate` results name the same tables with the same counts (to a hundredth), `except` some
 * (a slot counter row is per slot, not per booking).
 */
export function sameRows(
  a: Record<string, number>,
  b: Record<string, number>,
  except: string[] = [],
): boolean {
  const keys = (r: Record<string, number>) =>
    Object.keys(r)
      .filter((t) => !except.includes(t))
      .sort();
  const [ka, kb] = [keys(a), keys(b)];
  return ka.join() === kb.join() && ka.every((t) => Math.abs(a[t] - b[t]) < 0.01);
}

/** The machine's load average (1, 5, 15 min), two decimals: the machine is shared, results note it. */
export const loadAverage = () => loadavg().map((v) => Number(v.toFixed(2)));
