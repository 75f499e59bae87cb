/**
 * `npm run bench -- console`: the console's visits page (`GET /console/visits`, server-rendered HTML, a signed-in
 * Owner's session, test mode) for an organisation with 1,000,000 visits, first page and a deep page (a cursor at
 * row ~99 % of the filtered list), against its baseline in the same run: `GET /v1/visits` with the same filters
 * (status, and the same cursor) and a test secret key. Reports requests/s, p50/p99, the console/v1 throughput
 * ratio and the app's peak RSS; writes bench/results/console.{json,md}.
 * Targets: console p99 ≤ 50 ms; console throughput ≥ 0.7 of /v1's.
 * BENCH_VISITS (default 1,000,000), BENCH_SECONDS, BENCH_CONNECTIONS tune it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
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
  DURATION,
  load,
  LoadResult,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';

/** The plain app (`console-server.ts`), started and stopped as `startBenchServer` does with bench/server.ts. */
const startApp = (db: Parameters<typeof startBenchServer>[0], port: number, env: Record<string, string>) =>
  startBenchServer(db, port, env, 'console-server.js');

const VISITS = Number(process.env.BENCH_VISITS ?? 1_000_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);
const PASSWORD = 'bench-console-password-1';
const STATUS = 'checked_out';

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

  // The visits, set-based: 100,000 visitors, every status, one a minute over the last ~2 years (test mode).
  const t0 = Date.now();
  const visitors = Math.max(1, Math.floor(VISITS / 10));
  await ds.query(
    `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, last_visit_at, created_at, updated_at)
     SELECT 'visitor_cb' || i, $1, false, 'Console Visitor ' || i, '+23320' || (1000000 + i), now(), now(), now()
       FROM generate_series(1, $2) i`,
    [org.id, visitors],
  );
  const CHUNK = 200_000;
  for (let from = 1; from <= VISITS; from += CHUNK)
    await ds.query(
      `INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id,
                                  purpose, pass_channels, expected_at, created_at, updated_at)
       SELECT 'visit_cb' || lpad(i::text, 8, '0'), $1, false,
              (ARRAY['checked_out','checked_out','checked_out','cancelled','no_show','expected','checked_in'])[1 + i % 7],
              'meeting', 'invitation', $2, $3, 'visitor_cb' || (1 + i % $6), 'Bench visit', '{sms}',
              now() - (($5 - i) * interval '60 seconds'), now() - (($5 - i) * interval '60 seconds'),
              now() - (($5 - i) * interval '60 seconds')
         FROM generate_series($4::int, LEAST($4::int + ${CHUNK - 1}, $5::int)) i`,
      [org.id, org.site, org.host, from, VISITS, visitors],
    );
  await ds.query('ANALYZE visitor.visit; ANALYZE visitor.visitor');
  const seedSeconds = Number(((Date.now() - t0) / 1000).toFixed(1));

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
  const explain = (
    (await ds.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
       SELECT v.*, r.name FROM visitor.visit v JOIN visitor.visitor r ON r.id = v.visitor_id
        WHERE v.organisation_id = $1 AND v.livemode = false AND v.status = $2 AND (v.created_at, v.id) > ($3, $4)
        ORDER BY v.created_at, v.id LIMIT 26`,
      [org.id, STATUS, deepRow.created_at, deepRow.id],
    )) as { 'QUERY PLAN': string }[]
  ).map((r) => r['QUERY PLAN']);
  await graph.close();
  // The same cursor serves both lists: same list name, tenant and filters (the console signs its pages as /v1).
  const codec = new CursorCodec(loadConfig().secrets.sessionSecret);
  const cursor = encodeURIComponent(
    codec.encode('visits', { organisationId: org.id, livemode: false }, { status: STATUS } as never, [
      new Date(deepRow.created_at).toISOString(),
      deepRow.id,
    ]),
  );

  const app = await startApp(db, PORT, { TEST_MODE_RATE_PER_MINUTE: '100000000' });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    const signIn = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@console.bench', password: PASSWORD }),
    });
    if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status}`);
    const cookie = String(signIn.headers.get('set-cookie')).split(';')[0];
    const page = { cookie, accept: 'text/html' };
    const key = { authorization: `Bearer ${org.key}` };
    const consoleFirst = `${base}/console/visits?mode=test&status=${STATUS}`;
    const consoleDeep = `${consoleFirst}&cursor=${cursor}`;
    const v1First = `${base}/v1/visits?status=${STATUS}`;
    const v1Deep = `${v1First}&cursor=${cursor}`;
    // Both answer, with the same rows.
    for (const [url, headers] of [
      [consoleDeep, page],
      [v1Deep, key],
    ] as const) {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    }
    for (const [url, headers] of [
      [consoleFirst, page],
      [v1First, key],
    ] as const)
      await autocannon({ url, headers, connections: 4, duration: 2 });
    const runs: Record<string, LoadResult> = {};
    // Interleaved, so a busy moment of the machine falls on both.
    runs.v1_first = await load({ url: v1First, headers: key });
    runs.console_first = await load({ url: consoleFirst, headers: page });
    runs.v1_deep = await load({ url: v1Deep, headers: key });
    runs.console_deep = await load({ url: consoleDeep, headers: page });
    const ratio = (a: LoadResult, b: LoadResult) => Number((a.rps / b.rps).toFixed(3));
    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      visits_seeded: VISITS,
      matching_filter: matching,
      seed_seconds: seedSeconds,
      ...runs,
      console_to_v1_first: ratio(runs.console_first, runs.v1_first),
      console_to_v1_deep: ratio(runs.console_deep, runs.v1_deep),
      app_peak_rss_mb: peakRssMb(app.pid as number),
      explain_deep_page: explain,
      targets: { console_p99_ms: '≤ 50', console_to_v1: '≥ 0.7' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/console.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (name: string, r: LoadResult) => `| ${name} | ${r.rps} | ${r.mean} | ${r.p50} | ${r.p99} |`;
    const md = [
      `# bench console (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each)`,
      '',
      `${VISITS.toLocaleString('en')} test-mode visits seeded in ${seedSeconds} s; filter status=${STATUS} (${matching.toLocaleString('en')} visits), 25 to a page; the deep page's cursor is at row ~99 % of them.`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      row('GET /v1/visits, first page (baseline)', runs.v1_first),
      row('GET /console/visits, first page (HTML, session)', runs.console_first),
      row('GET /v1/visits, deep page (baseline)', runs.v1_deep),
      row('GET /console/visits, deep page (HTML, session)', runs.console_deep),
      '',
      `Console / v1 throughput: first page ${result.console_to_v1_first}, deep page ${result.console_to_v1_deep} (target ≥ 0.7); console p99 ${runs.console_first.p99} ms and ${runs.console_deep.p99} ms (target ≤ 50 ms).`,
      `App peak RSS: ${result.app_peak_rss_mb} MB.`,
      '',
      'Deep page query plan (the list statement of both):',
      '',
      ...explain.map((l) => `    ${l}`),
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/console.md'), md);
    console.log(md);
  } finally {
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
