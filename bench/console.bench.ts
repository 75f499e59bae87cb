/**
 * `npm run bench -- console`: the console's visits page (`GET /console/visits`, server-rendered HTML, a signed-in
 * Owner's session, test mode) for an organisation with 1,000,000 visits, first page and a deep page (a cursor at
 * row ~99 % of the filtered list), against its baseline in the same run: `GET /v1/visits` with the same filters
 * (status, and the same cursor) and a test secret key. Reports requests/s, p50/p99, the console/v1 throughput
 * ratio, CPU per request of the app and of its PostgreSQL backends, the app's peak RSS, the machine's load average
 * and the query plans of the list statement (first and deep page); writes bench/results/console.{json,md}.
 * Each pair runs in two halves, /v1, console, console, /v1, so a busy stretch of a shared machine falls on both.
 * Targets: console p99 ≤ 50 ms; console throughput ≥ 0.7 of /v1's.
 * BENCH_VISITS (default 1,000,000), BENCH_SECONDS, BENCH_CONNECTIONS tune it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config';
import { CursorCodec } from '../src/visitor/platform/pagination';
import { platformServices } from '../src/visitor/visitor.command';
import {
  benchContext,
  benchDatabase,
  benchProOrg,
  CONNECTIONS,
  cpuMeter,
  DURATION,
  Measured,
  peakRssMb,
  runIfMain,
  seedVisits,
  startBenchServer,
  stopBenchServer,
} from './support';

const VISITS = Number(process.env.BENCH_VISITS ?? 1_000_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);
const PASSWORD = 'bench-console-password-1';
const STATUS = 'checked_out';

/**
 * Two halves of one run as one: throughput over both, mean and CPU weighted by requests, p50 the weighted mean of
 * the halves' and p99 the worse of the two (a bound, not a percentile of the union).
 */
function merged(a: Measured, b: Measured, seconds: number): Measured {
  const n = a.requests + b.requests;
  const weighted = (x: number | null, y: number | null) =>
    x === null || y === null || n === 0 ? null : Number(((x * a.requests + y * b.requests) / n).toFixed(2));
  return {
    rps: Math.round(n / seconds),
    mean: weighted(a.mean, b.mean) ?? 0,
    p50: weighted(a.p50, b.p50) ?? 0,
    p99: Math.max(a.p99, b.p99),
    requests: n,
    app_cpu_ms: weighted(a.app_cpu_ms, b.app_cpu_ms),
    pg_cpu_ms: weighted(a.pg_cpu_ms, b.pg_cpu_ms),
    redis_cpu_ms: weighted(a.redis_cpu_ms, b.redis_cpu_ms),
  };
}

export async function main(): Promise<void> {
  const db = await benchDatabase('console');
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const org = await benchProOrg(ds, s, 'Bench Console', ['visits:read']);
  await s.accounts.create(
    org.id,
    { email: 'owner@console.bench', name: 'Bench Owner', role: 'owner', password: PASSWORD },
    { type: 'operator', id: 'bench' },
  );

  // The visits, set-based: every status, one a minute over the last ~2 years (test mode).
  const seedSeconds = await seedVisits(ds, org, VISITS);

  const matching = Number(
    (
      await ds.query(
        `SELECT count(*) AS n FROM visitor.visit WHERE organisation_id = $1 AND livemode = false AND status = $2`,
        [org.id, STATUS],
      )
    )[0].n,
  );
  const deepRow = (
    await ds.query(
      `SELECT created_at, id FROM visitor.visit WHERE organisation_id = $1 AND livemode = false AND status = $2
        ORDER BY created_at, id OFFSET $3 LIMIT 1`,
      [org.id, STATUS, Math.floor(matching * 0.99)],
    )
  )[0] as { created_at: Date; id: string };
  // The plans of the list statement as VisitsRepository.list builds it for this filter (page size 25, one row
  // more to know whether there is a next page), first page and deep page.
  const plan = async (after: string, params: unknown[]) =>
    (
      (await ds.query(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
         SELECT v.*, r.name AS visitor_name, r.phone AS visitor_phone, r.email AS visitor_email,
                r.company AS visitor_company
           FROM visitor.visit v JOIN visitor.visitor r ON r.id = v.visitor_id
          WHERE v.organisation_id = $1 AND v.livemode = $2 AND v.status = $3${after}
          ORDER BY v.created_at, v.id LIMIT 26`,
        [org.id, false, STATUS, ...params],
      )) as { 'QUERY PLAN': string }[]
    ).map((r) => r['QUERY PLAN']);
  const explainFirst = await plan('', []);
  const explain = await plan(' AND (v.created_at, v.id) > ($4, $5)', [deepRow.created_at, deepRow.id]);
  await graph.close();
  // The same cursor serves both lists: same list name, tenant and filters (the console signs its pages as /v1).
  const codec = new CursorCodec(loadConfig().secrets.sessionSecret);
  const cursor = encodeURIComponent(
    codec.encode('visits', { organisationId: org.id, livemode: false }, { status: STATUS } as never, [
      new Date(deepRow.created_at).toISOString(),
      deepRow.id,
    ]),
  );

  const app = await startBenchServer(db, PORT, { TEST_MODE_RATE_PER_MINUTE: '100000000' });
  const base = `http://127.0.0.1:${PORT}`;
  const meter = await cpuMeter(db, app);
  const loadBefore = loadavg().map((v) => Number(v.toFixed(2)));
  try {
    const signIn = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@console.bench', password: PASSWORD }),
    });
    if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status}`);
    const session = String(signIn.headers.get('set-cookie')).split(';')[0];
    // A browser keeps the CSRF secret cookie the first page sets (the layout's forms carry a token) and sends it
    // back with every later page, as it does the session cookie.
    const first = await fetch(`${base}/console/visits?mode=test`, { headers: { cookie: session } });
    const csrf = first.headers.getSetCookie().find((c) => c.startsWith('gh_csrf='));
    if (first.status !== 200 || !csrf) throw new Error(`first page: ${first.status}, no CSRF cookie`);
    const page = { cookie: `${session}; ${csrf.split(';')[0]}`, accept: 'text/html' };
    const key = { authorization: `Bearer ${org.key}` };
    const consoleFirst = `${base}/console/visits?mode=test&status=${STATUS}`;
    const consoleDeep = `${consoleFirst}&cursor=${cursor}`;
    const v1First = `${base}/v1/visits?status=${STATUS}`;
    const v1Deep = `${v1First}&cursor=${cursor}`;
    // Both answer, with the same rows.
    for (const [consoleUrl, v1Url] of [
      [consoleFirst, v1First],
      [consoleDeep, v1Deep],
    ]) {
      const html = await fetch(consoleUrl, { headers: page });
      const json = await fetch(v1Url, { headers: key });
      if (html.status !== 200 || json.status !== 200)
        throw new Error(`${consoleUrl}: ${html.status}, ${v1Url}: ${json.status} ${await json.text()}`);
      const shown = [...(await html.text()).matchAll(/data-visit="([^"]+)"/g)].map((m) => m[1]);
      const listed = ((await json.json()) as { data: { id: string }[] }).data.map((v) => v.id);
      if (shown.join() !== listed.join()) throw new Error(`${consoleUrl} shows other visits than ${v1Url}`);
    }
    // Warm every measured path (JIT, prepared statements on every pooled connection) before the first run.
    for (const [url, headers] of [
      [v1First, key],
      [consoleFirst, page],
      [v1Deep, key],
      [consoleDeep, page],
    ] as const)
      await autocannon({ url, headers, connections: CONNECTIONS, duration: 3 });
    const runs: Record<string, Measured> = {};
    // Each pair in two halves, in the order /v1, console, console, /v1, so a busy stretch of a shared machine
    // falls on both sides alike.
    const half = Math.max(1, Math.round(DURATION / 2));
    for (const [name, consoleUrl, v1Url] of [
      ['first', consoleFirst, v1First],
      ['deep', consoleDeep, v1Deep],
    ]) {
      const v1a = await meter.measured({ url: v1Url, headers: key, duration: half });
      const ca = await meter.measured({ url: consoleUrl, headers: page, duration: half });
      const cb = await meter.measured({ url: consoleUrl, headers: page, duration: half });
      const v1b = await meter.measured({ url: v1Url, headers: key, duration: half });
      runs[`v1_${name}`] = merged(v1a, v1b, 2 * half);
      runs[`console_${name}`] = merged(ca, cb, 2 * half);
    }
    const ratio = (a: Measured, b: Measured) => Number((a.rps / b.rps).toFixed(3));
    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: 2 * half,
      connections: CONNECTIONS,
      visits_seeded: VISITS,
      matching_filter: matching,
      seed_seconds: seedSeconds,
      ...runs,
      console_to_v1_first: ratio(runs.console_first, runs.v1_first),
      console_to_v1_deep: ratio(runs.console_deep, runs.v1_deep),
      app_peak_rss_mb: peakRssMb(app.pid as number),
      load_average_1_5_15: { before: loadBefore, after: loadavg().map((v) => Number(v.toFixed(2))) },
      explain_first_page: explainFirst,
      explain_deep_page: explain,
      targets: { console_p99_ms: '≤ 50', console_to_v1: '≥ 0.7' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/console.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (name: string, r: Measured) =>
      `| ${name} | ${r.rps} | ${r.mean} | ${r.p50} | ${r.p99} | ${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'} |`;
    const md = [
      `# bench console (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${2 * half} s each, in two halves: /v1, console, console, /v1)`,
      '',
      `${VISITS.toLocaleString('en')} test-mode visits seeded in ${seedSeconds} s; filter status=${STATUS} (${matching.toLocaleString('en')} visits), 25 to a page; the deep page's cursor is at row ~99 % of them.`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms | app CPU ms/request | PostgreSQL CPU ms/request |',
      '|---|---|---|---|---|---|---|',
      row('GET /v1/visits, first page (baseline)', runs.v1_first),
      row('GET /console/visits, first page (HTML, session)', runs.console_first),
      row('GET /v1/visits, deep page (baseline)', runs.v1_deep),
      row('GET /console/visits, deep page (HTML, session)', runs.console_deep),
      '',
      `Console / v1 throughput: first page ${result.console_to_v1_first}, deep page ${result.console_to_v1_deep} (target ≥ 0.7); console p99 ${runs.console_first.p99} ms and ${runs.console_deep.p99} ms (target ≤ 50 ms).`,
      `App peak RSS: ${result.app_peak_rss_mb} MB. Machine load average (1, 5, 15 min) before the runs: ${loadBefore.join(', ')}; after: ${result.load_average_1_5_15.after.join(', ')}.`,
      '',
      'First page query plan (the list statement of both):',
      '',
      ...explainFirst.map((l) => `    ${l}`),
      '',
      'Deep page query plan:',
      '',
      ...explain.map((l) => `    ${l}`),
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/console.md'), md);
    console.log(md);
  } finally {
    await meter.close();
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
