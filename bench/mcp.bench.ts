/**
 * `npm run bench -- mcp`: the `list_visits` tool through `POST /mcp` (a tools/call exactly as the official
 * `@modelcontextprotocol/client` v2 sends it at revision 2026-07-28, captured once and replayed) against
 * `GET /v1/visits` with the same test secret key and the same filters, in one run, over BENCH_VISITS (default
 * 10,000) visits. Reports requests/s, p50/p99, the throughput ratio (MCP over /v1), the CPU time per request of
 * the app and of its PostgreSQL backends (Linux /proc), the app's peak RSS and the machine's load; writes
 * bench/results/mcp.{json,md}. BENCH_SECONDS, BENCH_CONNECTIONS (default 16) tune it; BENCH_CPU_PROF=<dir> writes
 * a CPU profile of the app.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import autocannon from 'autocannon';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { DataSource } from 'typeorm';
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

const VISITS = Number(process.env.BENCH_VISITS ?? 10_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);
const FILTERS = { status: 'expected', limit: 20 };

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

/** The request the official client sends for one list_visits call with FILTERS (headers and body). */
async function capturedCall(
  base: string,
  key: string,
): Promise<{ headers: Record<string, string>; body: string }> {
  let captured: { headers: Record<string, string>; body: string } | null = null;
  const client = new Client(
    { name: 'bench-assistant', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: async (url, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (body.includes('"tools/call"'))
          captured = { headers: Object.fromEntries(new Headers(init?.headers)), body };
        return fetch(url, init);
      },
    }),
  );
  const result = (await client.callTool({ name: 'list_visits', arguments: FILTERS })) as {
    isError?: boolean;
    structuredContent?: { data: unknown[] };
  };
  await client.close();
  if (result.isError || !result.structuredContent)
    throw new Error(`list_visits failed: ${JSON.stringify(result)}`);
  if (result.structuredContent.data.length !== FILTERS.limit)
    throw new Error(`list_visits answered ${result.structuredContent.data.length} visits`);
  if (!captured) throw new Error('the client sent no tools/call');
  return captured;
}

export async function main(): Promise<void> {
  const db = await benchDatabase('mcp');
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const { id: orgId, site, host, key } = await benchProOrg(ds, s, 'Bench MCP', ['visits:read']);
  // VISITS visits (a tenth of them visitors), every seventh one expected.
  const visitors = Math.max(1, Math.floor(VISITS / 10));
  await ds.query(
    `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, last_visit_at, created_at, updated_at)
     SELECT 'visitor_seed' || i, $1, false, 'Visitor ' || i, '+23320' || (1000000 + i), now(), now(), now()
       FROM generate_series(1, $2) i`,
    [orgId, visitors],
  );
  await ds.query(
    `INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id,
                                purpose, pass_channels, created_at, updated_at)
     SELECT 'visit_seed' || lpad(i::text, 8, '0'), $1, false,
            (ARRAY['checked_out','checked_out','checked_out','cancelled','no_show','expected','checked_in'])[1 + i % 7],
            'meeting', 'invitation', $2, $3, 'visitor_seed' || (1 + i % $5), 'Bench visit', '{sms}',
            now() - (($4 - i) * interval '60 seconds'), now() - (($4 - i) * interval '60 seconds')
       FROM generate_series(1, $4) i`,
    [orgId, site, host, VISITS, visitors],
  );
  await ds.query('ANALYZE visitor.visit; ANALYZE visitor.visitor');
  await graph.close();

  const app = await startBenchServer(db, PORT, { TEST_MODE_RATE_PER_MINUTE: '100000000' });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    const auth = { authorization: `Bearer ${key}` };
    const v1Url = `${base}/v1/visits?status=${FILTERS.status}&limit=${FILTERS.limit}`;
    const v1Check = await fetch(v1Url, { headers: auth });
    if (v1Check.status !== 200) throw new Error(`GET /v1/visits: ${v1Check.status}`);
    const call = await capturedCall(base, key);
    const probe = await fetch(`${base}/mcp`, { method: 'POST', headers: call.headers, body: call.body });
    const answeredAs = probe.headers.get('content-type') ?? '';
    await probe.text();
    if (probe.status !== 200) throw new Error(`POST /mcp: ${probe.status}`);
    const mcp: autocannon.Options = {
      url: `${base}/mcp`,
      method: 'POST',
      headers: call.headers,
      body: call.body,
    };
    const v1: autocannon.Options = { url: v1Url, headers: auth };

    // CPU per request: the app's, and that of the PostgreSQL backends connected to the bench database (on a
    // local server; a backend the pool closed during the run is not counted).
    const admin = new PgClient({ connectionString: db.url });
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

    // Warm both paths, then measure each in turn.
    const loadBefore = loadavg().map((v) => Number(v.toFixed(2)));
    await autocannon({ ...v1, connections: 4, duration: 2 });
    await autocannon({ ...mcp, connections: 4, duration: 2 });
    let rest: Measured;
    let tool: Measured;
    try {
      rest = await measured(v1);
      tool = await measured(mcp);
    } finally {
      await admin.end();
    }

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, ${cpus().length} cores, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      visits_seeded: VISITS,
      filters: FILTERS,
      mcp_request_accept: call.headers.accept ?? null,
      mcp_response_content_type: answeredAs,
      v1_list_visits: rest,
      mcp_list_visits: tool,
      throughput_ratio_mcp_to_v1: Number((tool.rps / rest.rps).toFixed(3)),
      app_peak_rss_mb: peakRssMb(app.pid as number),
      load_average_1_5_15_before: loadBefore,
      load_average_1_5_15: loadavg().map((v) => Number(v.toFixed(2))),
      targets: { ratio: '≥ 0.7', mcp_p99_ms: '≤ 50' },
      met: { ratio: tool.rps / rest.rps >= 0.7, mcp_p99: tool.p99 <= 50 },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/mcp.json'), `${JSON.stringify(result, null, 2)}\n`);
    const row = (name: string, r: Measured) =>
      `| ${name} | ${r.rps} | ${r.mean} | ${r.p50} | ${r.p99} | ${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'} |`;
    const md = [
      `# bench mcp (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each)`,
      '',
      `${VISITS.toLocaleString('en')} visits seeded; test mode, one test secret key (visits:read), filters status=${FILTERS.status}, limit=${FILTERS.limit}. The tool call accepts \`${result.mcp_request_accept}\` and is answered as \`${answeredAs}\`.`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms | app CPU ms/request | PostgreSQL CPU ms/request |',
      '|---|---|---|---|---|---|---|',
      row('GET /v1/visits', rest),
      row('POST /mcp tools/call list_visits (2026-07-28, as the v2 client sends it)', tool),
      '',
      `Throughput ratio /mcp ÷ /v1: ${result.throughput_ratio_mcp_to_v1} (target ≥ 0.7); /mcp p99 ${tool.p99} ms (target ≤ 50 ms).`,
      `App peak RSS: ${result.app_peak_rss_mb} MB. Machine load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; at the end: ${result.load_average_1_5_15.join(', ')}.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/mcp.md'), md);
    console.log(md);
  } finally {
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
