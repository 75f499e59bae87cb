/**
 * `npm run bench -- public-conditional`: what a revalidation costs on the public API. For each endpoint, the same
 * URL at 16 connections answered 200 (no `If-None-Match`) and 304 (`If-None-Match` with the current ETag),
 * alternating rounds, with the app's and PostgreSQL's CPU per request. Target: a 304 at ≥ 2× the 200's rate.
 * BENCH_SCALE (default 200: 10,000 campaigns) sets the seed. Writes bench/results/public-conditional.{json,md}.
 */
import autocannon from 'autocannon';
import { type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { contentSeeder } from '../src/content/content.seeder';
import { PublicKeysService } from '../src/content/platform/public-keys.service';
import { ENDPOINTS, samples } from './public-endpoints';
import {
  benchContext,
  benchDatabase,
  BenchDatabase,
  cpuMs,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';

const SCALE = Number(process.env.BENCH_SCALE ?? 200);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NAMES = (
  process.env.BENCH_PUBLIC_ONLY ?? 'campaigns,campaign,events?q,jobs,durbar,transcript,profile,stats'
).split(',');

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  app_cpu_ms: number | null;
  pg_cpu_ms: number | null;
}

/** CPU ms of the database's backends by pid. */
async function backends(admin: Client, db: string): Promise<Map<number, number | null>> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [db],
  );
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/** One autocannon run that must answer `status` only, with CPU per request of the app and PostgreSQL. */
async function measure(
  admin: Client,
  db: BenchDatabase,
  app: ChildProcess,
  url: string,
  headers: Record<string, string>,
  status: 200 | 304,
): Promise<Run> {
  const app0 = cpuMs(app.pid!);
  const pg0 = await backends(admin, db.name);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  const app1 = cpuMs(app.pid!);
  let pg: number | null = 0;
  for (const [pid, ms] of await backends(admin, db.name)) {
    if (ms === null || pg === null) pg = null;
    else pg += ms - (pg0.get(pid) ?? 0);
  }
  const answered = status === 200 ? r['2xx'] : r['3xx'];
  if (r.errors > 0 || answered !== r.requests.total - r.timeouts - r.errors || r.timeouts > 0)
    throw new Error(`${url}: expected ${status} only; 2xx ${r['2xx']}, 3xx ${r['3xx']}, errors ${r.errors}`);
  const per = (ms: number | null) =>
    ms === null || r.requests.total === 0 ? null : Number((ms / r.requests.total).toFixed(2));
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    app_cpu_ms: per(app0 === null || app1 === null ? null : app1 - app0),
    pg_cpu_ms: per(pg),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medianRun = (runs: Run[]): Run => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  requests: runs.reduce((a, r) => a + r.requests, 0),
  app_cpu_ms: runs.some((r) => r.app_cpu_ms === null) ? null : median(runs.map((r) => r.app_cpu_ms!)),
  pg_cpu_ms: runs.some((r) => r.pg_cpu_ms === null) ? null : median(runs.map((r) => r.pg_cpu_ms!)),
});

export async function main(): Promise<void> {
  const port = 20_800 + Math.floor(Math.random() * 400);
  const db = await benchDatabase(`public_cond_${SCALE}`);
  const rows: { name: string; ok: Run; not_modified: Run; ratio: number }[] = [];
  const load0 = loadavg()[0];
  const peak = { rss: NaN };
  try {
    const graph = await benchContext(db);
    const ds = graph.get(DataSource);
    await contentSeeder.run(graph, { scale: SCALE, log: () => undefined });
    await ds.query('CHECKPOINT');
    const key = (await graph.get(PublicKeysService).create('bench')).key;
    const s = await samples(ds);
    await graph.close();
    const app = await startBenchServer(db, port, {
      PUBLIC_KEYED_RATE_PER_MINUTE: '100000000',
      REDIS_KEY_PREFIX: `bench:public-conditional:${port}`,
    });
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      for (const e of ENDPOINTS.filter((x) => NAMES.includes(x.name))) {
        const url = `http://127.0.0.1:${port}${e.path(s)}`;
        const first = await fetch(url, { headers: { 'x-api-key': key } });
        const etag = first.headers.get('etag');
        if (first.status !== 200 || !etag) throw new Error(`${e.name}: ${url} answered ${first.status}`);
        const plain = { 'x-api-key': key };
        const cond = { ...plain, 'if-none-match': etag };
        await autocannon({ url, headers: plain, connections: CONNECTIONS, duration: 1 });
        await autocannon({ url, headers: cond, connections: CONNECTIONS, duration: 1 });
        const ok: Run[] = [];
        const nm: Run[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          if (r % 2 === 0) {
            ok.push(await measure(admin, db, app, url, plain, 200));
            nm.push(await measure(admin, db, app, url, cond, 304));
          } else {
            nm.push(await measure(admin, db, app, url, cond, 304));
            ok.push(await measure(admin, db, app, url, plain, 200));
          }
        }
        const m = { ok: medianRun(ok), not_modified: medianRun(nm) };
        rows.push({ name: e.name, ...m, ratio: Number((m.not_modified.rps / m.ok.rps).toFixed(2)) });
        console.log(`${e.name}: 200 ${m.ok.rps}/s, 304 ${m.not_modified.rps}/s`);
      }
      peak.rss = peakRssMb(app.pid!);
    } finally {
      await admin.end();
      await stopBenchServer(app);
    }
  } finally {
    await db.drop();
  }
  const load1 = loadavg()[0];
  const result = {
    date: new Date().toISOString(),
    machine: `${process.platform} ${process.arch}, ${cpus().length} CPUs, node ${process.version}`,
    load_average_1m: { start: Number(load0.toFixed(2)), end: Number(load1.toFixed(2)) },
    scale: SCALE,
    connections: CONNECTIONS,
    seconds_each: SECONDS,
    rounds: ROUNDS,
    app_peak_rss_mb: peak.rss,
    endpoints: rows,
    target: '304 req/s ≥ 2 × 200 req/s on the same URL',
  };
  mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
  writeFileSync(
    join(process.cwd(), 'bench/results/public-conditional.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const cpu = (v: number | null) => (v === null ? '–' : String(v));
  const md = [
    `# bench public-conditional (${result.date}, ${result.machine}; load average ${result.load_average_1m.start} → ${result.load_average_1m.end}; scale ${SCALE}; ${CONNECTIONS} connections; 200 and 304 alternated ${ROUNDS} rounds of ${SECONDS} s, medians)`,
    '',
    '| endpoint | 200 req/s | 200 p99 ms | 200 app CPU ms/req | 200 PG CPU ms/req | 304 req/s | 304 p99 ms | 304 app CPU ms/req | 304 PG CPU ms/req | 304 / 200 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.ok.rps} | ${r.ok.p99} | ${cpu(r.ok.app_cpu_ms)} | ${cpu(r.ok.pg_cpu_ms)} | ${r.not_modified.rps} | ${r.not_modified.p99} | ${cpu(r.not_modified.app_cpu_ms)} | ${cpu(r.not_modified.pg_cpu_ms)} | ${r.ratio} |`,
    ),
    '',
    `App peak RSS ${peak.rss} MB. Target: a 304 at ≥ 2× its 200. Routes declared \`@ChangesWithClock()\` (stats, petition and event details) still hash the body for a 304 (stats is cached in memory, so its 200 is cheap already). Below target: ${
      rows
        .filter((r) => r.ratio < 2)
        .map((r) => r.name)
        .join(', ') || 'none'
    }.`,
    '',
  ].join('\n');
  writeFileSync(join(process.cwd(), 'bench/results/public-conditional.md'), md);
  console.log(md);
}

runIfMain(module, main);
