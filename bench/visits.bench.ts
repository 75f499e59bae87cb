/**
 * `npm run bench -- visits`:
 * 1. `POST /v1/visits` in test mode (secret key through the whole chain, a new Idempotency-Key and a new
 *    visitor phone per request, pass job enqueued) against the contract floor (bare-writes.ts: bare node:http + pg,
 *    one transaction writing exactly the rows the contract requires, for an organisation of its own set up alike),
 *    in three alternating rounds (BENCH_ROUNDS), medians; then the rows each side stored per create, by table.
 * 2. `GET /v1/visits?limit=100` over 1,000,000 visits: the first page against a deep page (cursor at row
 *    ~990,000) under load, then a walk through every page, one after another, following `next_cursor`.
 * Reports requests/s, p50/p99, CPU time per request of the app (or floor) and of its PostgreSQL backends (Linux
 * /proc), the peak RSS of both servers and the machine's load average; writes bench/results/visits.{json,md}.
 * BENCH_VISITS (default 1,000,000), BENCH_SECONDS, BENCH_CONNECTIONS tune it.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../src/config/config';
import { DataSource } from 'typeorm';
import { CursorCodec } from '../src/visitor/platform/pagination';
import { platformServices } from '../src/visitor/visitor.command';
import {
  benchProOrg,
  benchContext,
  benchDatabase,
  alternating,
  CONNECTIONS,
  cpuMeter,
  cpuPerRequest,
  cpuPerRequestLine,
  DURATION,
  loadAverage,
  Measured,
  peakRssMb,
  rowsOf,
  rowsPerCreate,
  sameRows,
  runIfMain,
  seedVisits,
  startBenchServer,
  stopBenchServer,
  WARMUP,
} from './support';

const VISITS = Number(process.env.BENCH_VISITS ?? 1_000_000);
const PORT = 39_900 + Math.floor(Math.random() * 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** A fresh visitor phone per request (valid Ghanaian mobile numbers; both runs draw from one counter). */
let phoneSeq = 1_000_000;
const nextPhone = () => `+23324${phoneSeq++}`;

export async function main(): Promise<void> {
  const db = await benchDatabase('visits');
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const {
    id: orgId,
    site,
    host,
    key,
  } = await benchProOrg(ds, s, 'Bench Visits', ['visits:read', 'visits:write']);
  const organisation = { id: orgId };
  // The floor's own tenant, set up alike, so each side's rows can be counted apart.
  const floorOrg = await benchProOrg(ds, s, 'Bench Visits Floor', ['visits:write']);

  // 1,000,000 visits (100,000 visitors) in bulk, spread over the last ~2 years, every status.
  const seedSeconds = await seedVisits(ds, { id: orgId, site, host }, VISITS);

  // A cursor deep in the list (row ~99 %), signed as the app signs them (same SESSION_SECRET).
  const deepRow = (
    await ds.query(
      `SELECT created_at, id FROM visitor.visit WHERE organisation_id = $1 AND livemode = false
        ORDER BY created_at, id OFFSET $2 LIMIT 1`,
      [organisation.id, Math.floor(VISITS * 0.99)],
    )
  )[0] as { created_at: Date; id: string };
  await graph.close();
  const codec = new CursorCodec(loadConfig().secrets.sessionSecret);
  const tenant = { organisationId: organisation.id, livemode: false };
  const deepCursor = codec.encode('visits', tenant, { limit: 100 }, [
    new Date(deepRow.created_at).toISOString(),
    deepRow.id,
  ]);

  const app = await startBenchServer(db, PORT, {
    BENCH_ORG: organisation.id,
    TEST_MODE_RATE_PER_MINUTE: '100000000',
  });
  const floorServer = await startBenchServer(
    db,
    PORT + 1,
    { BENCH_FLOOR_ORG: floorOrg.id },
    'bare-writes.js',
  );
  const base = `http://127.0.0.1:${PORT}`;
  const floorBase = `http://127.0.0.1:${PORT + 1}`;
  const auth = { authorization: `Bearer ${key}` };
  const createRequest = (url: string, o: { site: string; host: string }) => ({
    url,
    method: 'POST' as const,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            site_id: o.site,
            host_id: o.host,
            type: 'meeting',
            visitor: { name: 'Bench Visitor', phone: nextPhone() },
          }),
        }),
      },
    ],
  });
  const meter = await cpuMeter(db, app);
  const floorMeter = await cpuMeter(db, floorServer);
  const measured = meter.measured;
  const admin = new Client({ connectionString: db.url });
  admin.on('error', () => undefined);
  await admin.connect();
  const loadBefore = loadAverage();
  try {
    const appCreate = createRequest(`${base}/v1/visits`, { site, host });
    const floorCreate = createRequest(`${floorBase}/visits`, floorOrg);
    // Warm both paths.
    await autocannon({ ...floorCreate, connections: CONNECTIONS, duration: WARMUP });
    await autocannon({ ...appCreate, connections: CONNECTIONS, duration: WARMUP });
    await new Promise((r) => setTimeout(r, 1000));
    const before = { app: await rowsOf(admin, orgId), floor: await rowsOf(admin, floorOrg.id) };
    const { create, floor } = await alternating(ROUNDS, {
      create: () => measured(appCreate),
      floor: () => floorMeter.measured(floorCreate),
    });
    // Requests in flight when a round stopped finish first.
    await new Promise((r) => setTimeout(r, 2000));
    const stored = {
      app: rowsPerCreate(before.app, await rowsOf(admin, orgId), 'visitor.visit'),
      floor: rowsPerCreate(before.floor, await rowsOf(admin, floorOrg.id), 'visitor.visit'),
    };

    const firstPage = `${base}/v1/visits?limit=100`;
    const deepPage = `${base}/v1/visits?limit=100&cursor=${encodeURIComponent(deepCursor)}`;
    await autocannon({ url: firstPage, headers: auth, connections: 4, duration: 2 });
    const first = await measured({ url: firstPage, headers: auth });
    const deep = await measured({ url: deepPage, headers: auth });
    const first1 = await measured({ url: firstPage, headers: auth, connections: 1 });
    const deep1 = await measured({ url: deepPage, headers: auth, connections: 1 });

    // The walk: every page, in order, one connection.
    const times: number[] = [];
    let cursor: string | null = null;
    let rows = 0;
    const walkStart = Date.now();
    do {
      const started = performance.now();
      const res = await fetch(`${firstPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: auth,
      });
      const page = (await res.json()) as { data: unknown[]; next_cursor: string | null };
      times.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`page ${times.length}: ${res.status}`);
      rows += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    const walkSeconds = Number(((Date.now() - walkStart) / 1000).toFixed(1));
    const sorted = [...times].sort((a, b) => a - b);
    const firstTen = times.slice(0, Math.ceil(times.length / 10)).sort((a, b) => a - b);
    const lastTen = times.slice(-Math.ceil(times.length / 10)).sort((a, b) => a - b);
    const ms = (v: number) => Number(v.toFixed(2));
    const walk = {
      pages: times.length,
      rows,
      seconds: walkSeconds,
      p50: ms(quantile(sorted, 0.5)),
      p99: ms(quantile(sorted, 0.99)),
      first_tenth_p50: ms(quantile(firstTen, 0.5)),
      last_tenth_p50: ms(quantile(lastTen, 0.5)),
    };

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      visits_seeded: VISITS,
      seed_seconds: seedSeconds,
      rounds: ROUNDS,
      load_average_1_5_15: { before: loadBefore, after: loadAverage() },
      create_floor: floor,
      create,
      create_ratio_to_floor: Number((create.rps / floor.rps).toFixed(3)),
      create_cpu_per_request: cpuPerRequest(create, floor),
      rows_per_create: stored,
      same_rows: sameRows(stored.app, stored.floor),
      list_first_page: first,
      list_deep_page: deep,
      list_first_page_1_connection: first1,
      list_deep_page_1_connection: deep1,
      deep_to_first_p50_ratio: Number((deep1.mean / first1.mean).toFixed(3)),
      walk,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      floor_peak_rss_mb: peakRssMb(floorServer.pid as number),
      targets: {
        create_ratio_to_floor: '≥ 0.6',
        create_rps: '≥ 500',
        create_p99_ms: '≤ 50',
        list_p99_ms: '≤ 30',
        deep_vs_first: 'same cost',
      },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/visits.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (name: string, r: Measured) =>
      `| ${name} | ${r.rps} | ${r.mean} | ${r.p50} | ${r.p99} | ${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'} | ${r.redis_cpu_ms ?? 'n/a'} |`;
    const md = [
      `# bench visits (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each; creates: app and floor alternated ${ROUNDS} rounds, medians)`,
      '',
      `${VISITS.toLocaleString('en')} visits seeded in ${seedSeconds} s. Test mode, secret key, pass jobs enqueued (no worker running).`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms | server CPU ms/request | PostgreSQL CPU ms/request | Redis CPU ms/request |',
      '|---|---|---|---|---|---|---|---|',
      row('contract floor: POST /visits (bare node:http + pg, one transaction)', floor),
      row('POST /v1/visits (full create)', create),
      row('GET /v1/visits?limit=100, first page', first),
      row('GET /v1/visits?limit=100, page at row 990,000', deep),
      row('first page, 1 connection', first1),
      row('deep page, 1 connection', deep1),
      '',
      `Create: ${create.rps}/s at p99 ${create.p99} ms (targets ≥ 500/s, p99 ≤ 50 ms); ${result.create_ratio_to_floor} of the contract floor's throughput (target ≥ 0.6).`,
      cpuPerRequestLine(result.create_cpu_per_request, result.create_ratio_to_floor),
      `Rows stored per visit, by table — ${result.same_rows ? 'the same kinds and counts on both sides' : 'NOT THE SAME on both sides'} (each side its own organisation; ${create.requests} app creates, ${floor.requests} floor creates answered in the measured rounds): app ${JSON.stringify(stored.app)}; floor ${JSON.stringify(stored.floor)}.`,
      `The floor (bench/bare-writes.ts) commits in one transaction, with named prepared statements and no framework, the visitor upserted by phone, the visit, its pass, the visit.created event and the idempotency record; no credential, rate limit, reference check or pass job hand-off (docs/decisions.md).`,
      `Deep page / first page mean latency (1 connection): ${result.deep_to_first_p50_ratio}.`,
      `Walk through all ${walk.pages} pages (${walk.rows} rows) in ${walk.seconds} s: p50 ${walk.p50} ms, p99 ${walk.p99} ms; first tenth p50 ${walk.first_tenth_p50} ms, last tenth p50 ${walk.last_tenth_p50} ms (target p99 ≤ 30 ms).`,
      `Peak RSS: app ${result.app_peak_rss_mb} MB, floor ${result.floor_peak_rss_mb} MB. Load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; after: ${result.load_average_1_5_15.after.join(', ')}.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/visits.md'), md);
    console.log(md);
  } finally {
    await meter.close();
    await floorMeter.close();
    await admin.end();
    await stopBenchServer(app);
    await stopBenchServer(floorServer);
    await db.drop();
  }
}

runIfMain(module, main);
