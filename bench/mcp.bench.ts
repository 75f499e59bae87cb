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
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { platformServices } from '../src/visitor/visitor.command';
import {
  cpuMeter,
  Measured,
  seedVisits,
  benchContext,
  benchDatabase,
  benchProOrg,
  CONNECTIONS,
  DURATION,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
  WARMUP,
} from './support';

const VISITS = Number(process.env.BENCH_VISITS ?? 10_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);
const FILTERS = { status: 'expected', limit: 20 };

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
  await seedVisits(ds, { id: orgId, site, host }, VISITS);
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

    const meter = await cpuMeter(db, app);

    // Warm both paths, then measure each in turn.
    const loadBefore = loadavg().map((v) => Number(v.toFixed(2)));
    await autocannon({ ...v1, connections: CONNECTIONS, duration: WARMUP });
    await autocannon({ ...mcp, connections: CONNECTIONS, duration: WARMUP });
    let rest: Measured;
    let tool: Measured;
    try {
      rest = await meter.measured(v1);
      tool = await meter.measured(mcp);
    } finally {
      await meter.close();
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
