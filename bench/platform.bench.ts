/**
 * `npm run bench -- platform`: `GET /v1/sites` through the whole /v1 chain (live secret key lookup, IP/plan/
 * scope checks, Redis rate limit, request log) against the same handler with the chain switched off, in one
 * run, on one app process; then an idempotent `POST /v1/people` replayed with one key. Reports requests/s,
 * p50/p99 and the app's peak RSS; writes bench/results/platform.{json,md}.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformServices } from '../src/visitor/visitor.command';
import {
  benchContext,
  benchDatabase,
  CONNECTIONS,
  DURATION,
  load,
  peakRssMb,
  runIfMain,
  benchEnterpriseOrg,
  startBenchServer,
  stopBenchServer,
} from './support';

const PORT = 39_400 + Math.floor(Math.random() * 500);

export async function main(): Promise<void> {
  const db = await benchDatabase('platform');

  const graph = await benchContext(db);
  const s = platformServices(graph);
  const operator = { type: 'operator' as const, id: 'bench' };
  const organisation = await benchEnterpriseOrg(s);
  const key = (
    await s.keys.create(
      organisation.id,
      { name: 'bench', kind: 'secret', mode: 'live', scopes: ['sites:read', 'people:write'] },
      operator,
    )
  ).key;
  await graph.close();

  const app = await startBenchServer(db, PORT, { BENCH_ORG: organisation.id });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    // Warm both paths (JIT, pool, prepared statements).
    await autocannon({ url: `${base}/v1/__bench/sites`, connections: 4, duration: 2 });
    await autocannon({
      url: `${base}/v1/sites`,
      connections: 4,
      duration: 2,
      headers: { authorization: `Bearer ${key}` },
    });
    // Unloaded latency (one connection): what the chain adds to a single request.
    const unguarded1 = await load({ url: `${base}/v1/__bench/sites`, connections: 1 });
    const guarded1 = await load({
      url: `${base}/v1/sites`,
      connections: 1,
      headers: { authorization: `Bearer ${key}` },
    });
    // Saturated (CONNECTIONS): what the chain costs in throughput.
    const unguarded = await load({ url: `${base}/v1/__bench/sites` });
    const guarded = await load({ url: `${base}/v1/sites`, headers: { authorization: `Bearer ${key}` } });
    const idem = randomUUID();
    const postHeaders = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idem,
    };
    const body = JSON.stringify({ name: 'Bench Person', email: 'bench@example.com' });
    const first = await fetch(`${base}/v1/people`, { method: 'POST', headers: postHeaders, body });
    if (first.status !== 201) throw new Error(`POST /v1/people answered ${first.status}`);
    const replayOpts = { url: `${base}/v1/people`, method: 'POST' as const, headers: postHeaders, body };
    const replay1 = await load({ ...replayOpts, connections: 1 });
    const replay = await load(replayOpts);
    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      unguarded_1_connection: unguarded1,
      guarded_1_connection: guarded1,
      unguarded,
      guarded,
      chain_overhead_p50_ms: guarded1.p50 - unguarded1.p50,
      chain_overhead_mean_ms: Number((guarded1.mean - unguarded1.mean).toFixed(2)),
      chain_overhead_p50_ms_saturated: guarded.p50 - unguarded.p50,
      throughput_ratio: Number((guarded.rps / unguarded.rps).toFixed(3)),
      idempotent_replay_1_connection: replay1,
      idempotent_replay: replay,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      targets: { chain_overhead_p50_ms: '≤ 1', throughput_ratio: '≥ 0.60', replay_p99_ms: '≤ 20' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/platform.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `# bench platform (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s each)`,
      '',
      '| run | requests/s | mean ms | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      `| GET /v1/sites, chain off (baseline), 1 connection | ${unguarded1.rps} | ${unguarded1.mean} | ${unguarded1.p50} | ${unguarded1.p99} |`,
      `| GET /v1/sites, full chain, 1 connection | ${guarded1.rps} | ${guarded1.mean} | ${guarded1.p50} | ${guarded1.p99} |`,
      `| GET /v1/sites, chain off (baseline), ${CONNECTIONS} connections | ${unguarded.rps} | ${unguarded.mean} | ${unguarded.p50} | ${unguarded.p99} |`,
      `| GET /v1/sites, full chain, ${CONNECTIONS} connections | ${guarded.rps} | ${guarded.mean} | ${guarded.p50} | ${guarded.p99} |`,
      `| POST /v1/people, idempotent replay, 1 connection | ${replay1.rps} | ${replay1.mean} | ${replay1.p50} | ${replay1.p99} |`,
      `| POST /v1/people, idempotent replay, ${CONNECTIONS} connections | ${replay.rps} | ${replay.mean} | ${replay.p50} | ${replay.p99} |`,
      '',
      `Chain overhead unloaded: ${result.chain_overhead_mean_ms} ms mean, ${result.chain_overhead_p50_ms} ms at p50 (saturated: ${result.chain_overhead_p50_ms_saturated} ms; target ≤ 1). Throughput ratio: ${result.throughput_ratio} (target ≥ 0.60). Replay p99: ${replay1.p99} ms unloaded, ${replay.p99} ms saturated (target ≤ 20). App peak RSS: ${result.app_peak_rss_mb} MB.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/platform.md'), md);
    console.log(md);
  } finally {
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
