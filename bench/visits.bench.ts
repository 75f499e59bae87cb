/**
 * `npm run bench -- visits`:
 * 1. `POST /v1/visits` in test mode (secret key through the whole chain, a new Idempotency-Key and a new
 *    visitor phone per request, pass job enqueued) against the floor `POST /v1/__bench/visits` (two plain
 *    INSERTs, chain off), in one run.
 * 2. `GET /v1/visits?limit=100` over 1,000,000 visits: the first page against a deep page (cursor at row
 *    ~990,000) under load, then a walk through every page, one after another, following `next_cursor`.
 * Reports requests/s, p50/p99, CPU time per request of the app and of its PostgreSQL backends (Linux /proc),
 * and the app's peak RSS; writes bench/results/visits.{json,md}.
 * BENCH_VISITS (default 1,000,000), BENCH_SECONDS, BENCH_CONNECTIONS tune it.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  CONNECTIONS,
  DURATION,
  load,
  LoadResult,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';

const VISITS = Number(process.env.BENCH_VISITS ?? 1_000_000);
const PORT = 39_900 + Math.floor(Math.random() * 500);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat; null when unreadable. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in clock ticks of 10 ms
  } catch {
    return null;
  }
}

/** A load result with the CPU it cost per request: the app's process, and its PostgreSQL backends. */
type Measured = LoadResult & { app_cpu_ms: number | null; pg_cpu_ms: number | null };

/** A fresh visitor phone per request (valid Ghanaian mobile numbers; both runs draw from one counter). */
let phoneSeq = 1_000_000;
const nextPhone = () => `+23324${phoneSeq++}`;

export async function main(): Promise<void> {
  const db = await benchDatabase('visits');
  const { url } = db;

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

  // 1,000,000 visits (100,000 visitors) in bulk, spread over the last ~2 years, every status.
  const t0 = Date.now();
  const visitors = Math.max(1, Math.floor(VISITS / 10));
  await ds.query(
    `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, last_visit_at, created_at, updated_at)
     SELECT 'visitor_seed' || i, $1, false, 'Visitor ' || i, '+23320' || (1000000 + i), now(), now(), now()
       FROM generate_series(1, $2) i`,
    [organisation.id, visitors],
  );
  const CHUNK = 200_000;
  for (let from = 1; from <= VISITS; from += CHUNK) {
    await ds.query(
      `INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id,
                                  purpose, pass_channels, created_at, updated_at)
       SELECT 'visit_seed' || lpad(i::text, 8, '0'), $1, false,
              (ARRAY['checked_out','checked_out','checked_out','cancelled','no_show','expected','checked_in'])[1 + i % 7],
              'meeting', 'invitation', $2, $3, 'visitor_seed' || (1 + i % $6), 'Bench visit', '{sms}',
              now() - (($5 - i) * interval '60 seconds'), now() - (($5 - i) * interval '60 seconds')
         FROM generate_series($4::int, LEAST($4::int + ${CHUNK - 1}, $5::int)) i`,
      [organisation.id, site, host, from, VISITS, visitors],
    );
  }
  await ds.query('ANALYZE visitor.visit; ANALYZE visitor.visitor');
  const seedSeconds = Number(((Date.now() - t0) / 1000).toFixed(1));

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
  const base = `http://127.0.0.1:${PORT}`;
  const auth = { authorization: `Bearer ${key}` };
  const createRequest = (path: string) => ({
    url: `${base}${path}`,
    method: 'POST' as const,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({
            site_id: site,
            host_id: host,
            type: 'meeting',
            visitor: { name: 'Bench Visitor', phone: nextPhone() },
          }),
        }),
      },
    ],
  });
  const admin = new Client({ connectionString: url });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    // CPU per request: the app's, and that of the PostgreSQL backends connected to the bench database (on a
    // local server; a backend the pool closed during the run is not counted).
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
      ms === null || r.requests === 0 ? null : Number((ms / r.requests).toFixed(2));
    const measured = async (opts: autocannon.Options): Promise<Measured> => {
      const app0 = cpuMs(app.pid as number);
      const pg0 = await backends();
      const r = await load(opts);
      const app1 = cpuMs(app.pid as number);
      let pg: number | null = 0;
      for (const [pid, ms] of await backends()) {
        if (ms === null || pg === null) pg = null;
        else pg += ms - (pg0.get(pid) ?? 0);
      }
      return {
        ...r,
        app_cpu_ms: perRequest(app0 === null || app1 === null ? null : app1 - app0, r),
        pg_cpu_ms: perRequest(pg, r),
      };
    };

    // Warm both paths.
    await autocannon({ ...createRequest('/v1/__bench/visits'), connections: 4, duration: 2 });
    await autocannon({ ...createRequest('/v1/visits'), connections: 4, duration: 2 });
    const floor = await measured(createRequest('/v1/__bench/visits'));
    const create = await measured(createRequest('/v1/visits'));

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
      create_floor: floor,
      create,
      create_ratio_to_floor: Number((create.rps / floor.rps).toFixed(3)),
      list_first_page: first,
      list_deep_page: deep,
      list_first_page_1_connection: first1,
      list_deep_page_1_connection: deep1,
      deep_to_first_p50_ratio: Number((deep1.mean / first1.mean).toFixed(3)),
      walk,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      targets: {
        create_rps: '≥ 500',
        create_p99_ms: '≤ 50',
        list_p99_ms: '≤ 30',
        deep_vs_first: 'same cost',
      },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/visits.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (name: string, r: Measured) =>
      `| ${name} | ${r.rps} | ${r.mean} | ${r.p50} | ${r.p99} | ${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'} |`;
    const md = [
      `# bench visits (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each)`,
      '',
      `${VISITS.toLocaleString('en')} visits seeded in ${seedSeconds} s. Test mode, secret key, pass jobs enqueued (no worker running).`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms | app CPU ms/request | PostgreSQL CPU ms/request |',
      '|---|---|---|---|---|---|---|',
      row('POST /v1/__bench/visits (floor: 2 INSERTs, chain off)', floor),
      row('POST /v1/visits (full create)', create),
      row('GET /v1/visits?limit=100, first page', first),
      row('GET /v1/visits?limit=100, page at row 990,000', deep),
      row('first page, 1 connection', first1),
      row('deep page, 1 connection', deep1),
      '',
      `Create: ${create.rps}/s at p99 ${create.p99} ms (targets ≥ 500/s, p99 ≤ 50 ms); ${result.create_ratio_to_floor} of the floor's throughput.`,
      `Deep page / first page mean latency (1 connection): ${result.deep_to_first_p50_ratio}.`,
      `Walk through all ${walk.pages} pages (${walk.rows} rows) in ${walk.seconds} s: p50 ${walk.p50} ms, p99 ${walk.p99} ms; first tenth p50 ${walk.first_tenth_p50} ms, last tenth p50 ${walk.last_tenth_p50} ms (target p99 ≤ 30 ms).`,
      `App peak RSS: ${result.app_peak_rss_mb} MB.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/visits.md'), md);
    console.log(md);
  } finally {
    await admin.end();
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
