/**
 * `npm run bench -- public`: the public content API at scale (BENCH_SCALE, default 2000: 100,000 campaigns,
 * 1,000,000 signatures) against the bare handler (bare-public.ts: node:http + pg, named prepared statements, the
 * same SQL and the app's own mappers, no framework) in the same run. Before measuring, each sampled URL is fetched
 * from both and the bodies must be byte-identical (and the app's response must carry the contract's headers), or
 * the bench stops. Then, per endpoint, three alternating rounds (BENCH_PUBLIC_ROUNDS) of BENCH_PUBLIC_SECONDS
 * (default 10) at 16 connections (BENCH_CONNECTIONS) of: the app's 200, the bare handler's 200, and the app's 304
 * (If-None-Match with the current ETag); medians. Reported: req/s, p50/p99, CPU per request of each server and of
 * its PostgreSQL backends, both servers' peak RSS, the app/bare ratio and the 304/200 ratio, the load average.
 * Then the app alone on a 1 % data set, to show cost does not grow with the data.
 * BENCH_PUBLIC_ONLY=campaigns,jobs?q picks endpoints among those the bare handler serves (BARE); by default the
 * five of issue 34 (campaign list, campaign detail, event search, jobs list, durbar transcript).
 * Writes bench/results/public.{json,md}.
 */
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { contentSeeder } from '../src/content/content.seeder';
import { PublicKeysService } from '../src/content/platform/public-keys.service';
import { ENDPOINTS, samples, Samples } from './public-endpoints';
import {
  alternating,
  benchContext,
  benchDatabase,
  BenchDatabase,
  CONNECTIONS,
  cpuMeter,
  DURATION,
  load,
  LoadResult,
  loadAverage,
  Measured,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
  WARMUP,
} from './support';

const SCALE = Number(process.env.BENCH_SCALE ?? 2000);
const SECONDS = Number(process.env.BENCH_PUBLIC_SECONDS ?? DURATION);
/** Rounds per endpoint of every variant, alternating which goes first (BENCH_PUBLIC_ROUNDS, default 3). */
const ROUNDS = Number(process.env.BENCH_PUBLIC_ROUNDS ?? 3);
/** The endpoints bare-public.ts serves. */
const BARE = [
  'campaigns',
  'campaigns?country',
  'campaign',
  'events?q',
  'events',
  'event',
  'jobs',
  'jobs?q',
  'job',
  'durbar',
  'transcript',
];
/** BENCH_PUBLIC_ONLY=campaigns,jobs?q measures just those endpoints (by name); by default the five of issue 34. */
const ONLY = process.env.BENCH_PUBLIC_ONLY?.split(',').map((n) => n.trim()) ?? [
  'campaigns',
  'campaign',
  'events?q',
  'jobs',
  'transcript',
];
const SELECTED = ENDPOINTS.filter((e) => ONLY.includes(e.name));
/** Headers the contract puts on a keyed 200 of /public/v1. */
const CONTRACT_HEADERS = [
  'etag',
  'cache-control',
  'svc-request-id',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];

/**
 * Fetches `path` from the app (with the key) and from the bare handler; throws unless both answer 200 with
 * byte-identical bodies and the app's answer carries the contract's headers. Returns the app's ETag.
 */
async function sameBodies(name: string, app: string, bare: string, key: string): Promise<string> {
  const a = await fetch(app, { headers: { 'x-api-key': key } });
  const b = await fetch(bare);
  const [ab, bb] = [Buffer.from(await a.arrayBuffer()), Buffer.from(await b.arrayBuffer())];
  if (a.status !== 200 || b.status !== 200)
    throw new Error(`${name}: app answered ${a.status}, bare handler ${b.status}`);
  if (!ab.equals(bb)) {
    let at = 0;
    while (at < ab.length && ab[at] === bb[at]) at++;
    throw new Error(
      `${name}: the bare handler's body differs from the app's at byte ${at} (app ${ab.length} bytes, bare ${bb.length}):\n` +
        `  app:  …${ab.subarray(Math.max(0, at - 80), at + 80).toString()}…\n` +
        `  bare: …${bb.subarray(Math.max(0, at - 80), at + 80).toString()}…\n` +
        'bench/bare-public.ts runs the SQL of the content repositories as it was written; bring it up to date.',
    );
  }
  const missing = CONTRACT_HEADERS.filter((h) => !a.headers.has(h));
  if (missing.length) throw new Error(`${name}: the app's 200 lacks ${missing.join(', ')}`);
  return a.headers.get('etag')!;
}

/** An autocannon run where every answer must be a 304 (If-None-Match with the current ETag). */
async function notModified(opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts });
  const n304 = (r.statusCodeStats as Record<string, { count: number }> | undefined)?.['304']?.count ?? 0;
  if (r.errors > 0 || r['2xx'] > 0 || n304 !== r.requests.total - r['2xx'])
    throw new Error(`${opts.url}: ${r.errors} errors, ${r['2xx']} 2xx, ${n304} 304 of ${r.requests.total}`);
  return {
    rps: Math.round(r.requests.average),
    mean: Number(r.latency.average.toFixed(2)),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
  };
}

/**
 * Items on the page an endpoint answers (null for a detail): growth compares full and 1 % scale only where both
 * pages hold as many items, or it would count a fuller page as slowness.
 */
async function itemsAt(url: string, key: string, name: string): Promise<number | null> {
  const res = await fetch(url, { headers: { 'x-api-key': key } });
  if (res.status !== 200) throw new Error(`${name}: ${url} answered ${res.status}`);
  const body = (await res.json()) as { data?: unknown };
  return Array.isArray(body.data) ? body.data.length : null;
}

async function seeded(
  scale: number,
): Promise<{ db: BenchDatabase; samples: Samples; key: string; seconds: number }> {
  const db = await benchDatabase(`public_${scale}`);
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const t0 = Date.now();
  await contentSeeder.run(graph, { scale, log: () => undefined });
  const seconds = Number(((Date.now() - t0) / 1000).toFixed(1));
  // Measure the service, not the write-back of the seed: flush the seeded pages before the first request.
  await ds.query('CHECKPOINT');
  const key = (await graph.get(PublicKeysService).create('bench')).key;
  const s = await samples(ds);
  await graph.close();
  return { db, samples: s, key, seconds };
}

/** The app's settings beyond startBenchServer's: a keyed rate limit the bench cannot reach. */
const APP_ENV = { PUBLIC_KEYED_RATE_PER_MINUTE: '100000000' };

export async function main(): Promise<void> {
  const unknown = ONLY.filter((n) => !BARE.includes(n));
  if (unknown.length)
    throw new Error(`no bare handler for ${unknown.join(', ')}; bare-public.ts serves ${BARE.join(', ')}`);
  // Below the ephemeral range (32768+), so no load-generator socket can hold the port.
  const port = 20_400 + Math.floor(Math.random() * 400);
  const full = await seeded(SCALE);
  const small = await seeded(Math.max(1, Math.round(SCALE / 100)));
  const opts = (url: string, headers: Record<string, string> = {}) => ({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
  });
  type Row = {
    name: string;
    path: string;
    app: Measured;
    bare: Measured;
    not_modified: Measured;
    ratio: number;
    ratio_304_to_200: number;
    items: number | null;
    small: LoadResult;
    small_items: number | null;
    growth: number;
  };
  const rows: Row[] = [];
  let appRss: number;
  let bareRss: number;
  const loadBefore = loadAverage();
  try {
    const app = await startBenchServer(full.db, port, APP_ENV);
    const bare = await startBenchServer(full.db, port + 1, {}, 'bare-public.js');
    const appMeter = await cpuMeter(full.db, app);
    const bareMeter = await cpuMeter(full.db, bare);
    const measured: Record<string, Omit<Row, 'small' | 'small_items' | 'growth'>> = {};
    try {
      // Every sampled URL first, so a body that differs stops the bench before any measuring.
      const etags: Record<string, string> = {};
      for (const e of SELECTED) {
        const path = e.path(full.samples);
        etags[e.name] = await sameBodies(
          e.name,
          `http://127.0.0.1:${port}${path}`,
          `http://127.0.0.1:${port + 1}${path}`,
          full.key,
        );
      }
      for (const e of SELECTED) {
        const path = e.path(full.samples);
        const url = `http://127.0.0.1:${port}${path}`;
        const items = await itemsAt(url, full.key, e.name);
        const targets = {
          app: opts(url, { 'x-api-key': full.key }),
          bare: opts(`http://127.0.0.1:${port + 1}${path}`),
          not_modified: opts(url, { 'x-api-key': full.key, 'if-none-match': etags[e.name] }),
        };
        await load({ ...targets.app, duration: WARMUP });
        await load({ ...targets.bare, duration: WARMUP });
        const m = await alternating(ROUNDS, {
          app: () => appMeter.measured(targets.app),
          bare: () => bareMeter.measured(targets.bare),
          not_modified: () => appMeter.around(() => notModified(targets.not_modified)),
        });
        measured[e.name] = {
          name: e.name,
          path,
          ...m,
          ratio: Number((m.app.rps / m.bare.rps).toFixed(2)),
          ratio_304_to_200: Number((m.not_modified.rps / m.app.rps).toFixed(2)),
          items,
        };
        console.log(
          `${e.name}: app ${m.app.rps}/s p99 ${m.app.p99} ms, bare ${m.bare.rps}/s p99 ${m.bare.p99} ms, 304 ${m.not_modified.rps}/s`,
        );
      }
      appRss = peakRssMb(app.pid!);
      bareRss = peakRssMb(bare.pid!);
    } finally {
      await appMeter.close();
      await bareMeter.close();
      await stopBenchServer(app);
      await stopBenchServer(bare);
    }
    const smallApp = await startBenchServer(small.db, port + 2, APP_ENV);
    try {
      for (const e of SELECTED) {
        const url = `http://127.0.0.1:${port + 2}${e.path(small.samples)}`;
        const m = measured[e.name];
        const smallItems = await itemsAt(url, small.key, e.name);
        await load({ ...opts(url, { 'x-api-key': small.key }), duration: WARMUP });
        const s = await load(opts(url, { 'x-api-key': small.key }));
        rows.push({
          ...m,
          small: s,
          small_items: smallItems,
          growth: Number((m.app.mean / s.mean).toFixed(2)),
        });
      }
    } finally {
      await stopBenchServer(smallApp);
    }
  } finally {
    await full.db.drop();
    await small.db.drop();
  }

  const result = {
    date: new Date().toISOString(),
    machine: `${process.platform} ${process.arch}, node ${process.version}`,
    scale: SCALE,
    seed_seconds: full.seconds,
    connections: CONNECTIONS,
    seconds_each: SECONDS,
    rounds: ROUNDS,
    load_average_1_5_15: { before: loadBefore, after: loadAverage() },
    app_peak_rss_mb: appRss,
    bare_peak_rss_mb: bareRss,
    endpoints: rows,
    targets: {
      ratio: '≥ 0.85 of the bare handler',
      ratio_304_to_200: '≥ 2',
      p99_ms: `≤ 50 at ${CONNECTIONS} connections`,
      growth: '≤ 1.5 (full scale / 1 % scale mean latency)',
    },
  };
  // A run of other endpoints than the default prints its table but keeps the recorded results of the default one.
  const out = process.env.BENCH_PUBLIC_ONLY ? 'bench/results/public-partial' : 'bench/results/public';
  mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
  writeFileSync(join(process.cwd(), `${out}.json`), `${JSON.stringify(result, null, 2)}\n`);
  const cpu = (r: Measured) => `${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'}`;
  const below = rows.filter(
    (r) => r.ratio < 0.85 || r.ratio_304_to_200 < 2 || r.app.p99 > 50 || r.growth > 1.5,
  );
  const md = [
    `# bench public (${result.date}, ${result.machine}; scale ${SCALE} seeded in ${full.seconds} s; ${CONNECTIONS} connections; app 200, bare handler 200 and app 304 alternated ${ROUNDS} rounds of ${SECONDS} s each, medians)`,
    '',
    "Bodies of every sampled URL checked byte-identical between the app and the bare handler before measuring; the app's carry the contract headers (ETag, Cache-Control, Svc-Request-Id, CORS, RateLimit-*).",
    '',
    '| endpoint | app req/s | app p50 ms | app p99 ms | app CPU ms/req | app PG CPU ms/req | bare req/s | bare p50 ms | bare p99 ms | bare CPU ms/req | bare PG CPU ms/req | ratio | 304 req/s | 304 p99 ms | 304 app CPU ms/req | 304 PG CPU ms/req | 304/200 | 1 % scale p50 ms | growth |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.app.rps} | ${r.app.p50} | ${r.app.p99} | ${cpu(r.app)} | ${r.bare.rps} | ${r.bare.p50} | ${r.bare.p99} | ${cpu(r.bare)} | ${r.ratio} | ${r.not_modified.rps} | ${r.not_modified.p99} | ${cpu(r.not_modified)} | ${r.ratio_304_to_200} | ${r.small.p50} | ${r.growth} |`,
    ),
    '',
    ...rows
      .filter((r) => r.items !== r.small_items)
      .map(
        (r) =>
          `Growth of ${r.name} compares unequal pages: ${r.items} items at full scale, ${r.small_items} at 1 %.`,
      ),
    `Peak RSS: app ${appRss} MB, bare handler ${bareRss} MB. Load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; after: ${result.load_average_1_5_15.after.join(', ')}.`,
    `Targets: ratio ≥ 0.85 of the bare handler, 304 ≥ 2× the 200 of the same URL, p99 ≤ 50 ms, growth ≤ 1.5. The bare handler (bench/bare-public.ts) is node:http + pg with named prepared statements running the content repositories' SQL, the app's response mappers and the app's 30 s total cache, and sends no contract header (docs/decisions.md). PostgreSQL CPU is that of all the database's backends during the run. Below target: ${
      below.map((r) => r.name).join(', ') || 'none'
    }.`,
    '',
  ].join('\n');
  writeFileSync(join(process.cwd(), `${out}.md`), md);
  console.log(md);
}

runIfMain(module, main);
