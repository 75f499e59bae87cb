/**
 * `npm run bench -- webhooks`: 20,000 events fanned out to 4 endpoints served by a local receiver, in BENCH_ROUNDS
 * (default 3) rounds. Baseline (same run, alternated with the engine round by round, medians): the same signed POSTs
 * sent by a plain loop in its own process, as the worker is (signed-posts.ts: HMAC + node:http with a keep-alive
 * agent set up as the worker's sender's, the worker's concurrency), with no outbox, queue or database, so the ratio
 * shows what the engine costs (target ≥ 0.7). Reports deliveries/s, event-to-receipt p50/p99 with the queue idle
 * (after one warm-up delivery, so a slow start of the worker is not counted), duplicate and lost counts (by
 * webhook-id), the worker's peak RSS, and CPU per delivery of the worker and of its PostgreSQL backends during the
 * drain beside the baseline's CPU per POST (figures that hold on a busy machine).
 */
import { fork, spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config';
import { createApp } from '../src/app.factory';
import { Transactions } from '../src/database/unit-of-work';
import { EventsService } from '../src/visitor/events/events.service';
import { SecretBox } from '../src/common/crypto/secret-box';
import { newId } from '../src/common/ids';
import { newSigningSecret } from '../src/visitor/webhooks/delivery/signature';
import { WebhooksRepository } from '../src/visitor/webhooks/webhooks.repository';
import {
  benchDatabase,
  cpuMeter,
  inAlternatingRounds,
  medianOfKnown,
  peakRssMb,
  runIfMain,
  RUNTIME_FLAGS,
} from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ENDPOINTS = 4;
const IDLE_EVENTS = 200;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface EngineRound {
  deliveries_per_s: number;
  events_recorded_per_s: number;
  backlog_age_p50_ms: number;
  backlog_age_p99_ms: number;
  worker_cpu_ms: number | null;
  pg_cpu_ms: number | null;
}
interface LoopRound {
  posts_per_s: number;
  cpu_ms: number;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const receiptTimes: number[] = [];

interface Receipt {
  id: string;
  path: string;
  latencyMs: number;
}

async function receiver() {
  const receipts: Receipt[] = [];
  receiptTimes.length = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const created = Date.parse(JSON.parse(body).created_at);
      receipts.push({
        id: String(req.headers['webhook-id']),
        path: req.url ?? '',
        latencyMs: Date.now() - created,
      });
      receiptTimes.push(performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    receipts,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** The plain signed-POST loop (signed-posts.ts) in its own process, as the worker is; its POSTs per second. */
async function baseline(
  port: number,
  total: number,
  concurrency: number,
): Promise<{ perSecond: number; cpuMs: number }> {
  const child = fork(join(__dirname, 'signed-posts.js'), [], {
    execArgv: RUNTIME_FLAGS,
    env: {
      ...process.env,
      PORT: String(port),
      BENCH_POSTS: String(total),
      BENCH_CONCURRENCY: String(concurrency),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as { perSecond: number; cpuMs: number }));
    child.once('exit', (code) => reject(new Error(`signed-posts exited ${code}`)));
  });
}

export async function main(): Promise<void> {
  const db = await benchDatabase('webhooks');
  const { url } = db;
  const prefix = `ghbench:${randomBytes(4).toString('hex')}`;
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
    REDIS_KEY_PREFIX: prefix,
    WEBHOOK_SWEEP_MS: '1000',
  };
  const config = loadConfig({ ...process.env, ...env, RUN_WORKER: 'false' });
  const api = await createApp(config, url, { logger: ['error'] });
  const rx = await receiver();
  const tenant = { organisationId: 'org_bench', livemode: true };
  const box = new SecretBox(config.secrets.encryptionKey);
  const repo = api.get(WebhooksRepository);
  for (let i = 0; i < ENDPOINTS; i++) {
    const now = new Date();
    await repo.insertEndpoint({
      id: newId('whep'),
      ...tenant,
      url: `http://127.0.0.1:${rx.port}/ep${i}`,
      description: '',
      enabledEvents: ['*'],
      status: 'enabled',
      disabledReason: null,
      secretSealed: box.seal(newSigningSecret()),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
  }
  const startWorker = async () => {
    const w = spawn(
      process.execPath,
      [
        ...RUNTIME_FLAGS,
        ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
        'dist/src/worker.js',
      ],
      {
        env: { ...process.env, ...env, DATABASE_URL: url, RUN_WORKER: 'true' },
        stdio: 'inherit',
      },
    );
    await new Promise((r) => setTimeout(r, 3000));
    return w;
  };
  let worker = await startWorker();
  const record = (i: number) =>
    api
      .get(Transactions)
      .run((uow) =>
        api.get(EventsService).record(uow, tenant, 'visit.created', { id: `visit_${i}`, i } as never),
      );

  // Phase 1: queue idle, one event at a time: commit-to-receipt latency, once a warm-up event went through.
  await record(-1);
  await waitUntil(() => rx.receipts.length >= ENDPOINTS, 120_000);
  rx.receipts.length = 0;
  for (let i = 0; i < IDLE_EVENTS; i++) {
    await record(i);
    await new Promise((r) => setTimeout(r, 25));
  }
  await waitUntil(() => rx.receipts.length >= IDLE_EVENTS * ENDPOINTS, 30_000);
  const idle = rx.receipts.map((r) => r.latencyMs).sort((a, b) => a - b);
  rx.receipts.length = 0;
  receiptTimes.length = 0;

  // Phase 2: throughput, in ROUNDS rounds, the engine and the loop alternated (the order reversed every other round,
  // so drift in the machine's speed falls on both alike); each figure is the median of its rounds. An engine round:
  // with the worker stopped, record EVENTS events (8 writers); then start a worker and time the drain from its first
  // receipt to its last, with the CPU of the worker and of its PostgreSQL backends in between.
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  let recorded = IDLE_EVENTS;
  let delivered = 0;
  let duplicated = 0;
  let complete = true;
  let workerRss = 0;
  const engineRound = async (): Promise<EngineRound> => {
    // Each round starts from vacuumed tables, as autovacuum keeps them in service: otherwise a round paid for the
    // previous round's dead rows while autovacuum ran (7,072, 6,271 and 4,967 deliveries/s in one run).
    await api.get(DataSource).query('VACUUM ANALYZE visitor.webhook_delivery, visitor.webhook_attempt');
    rx.receipts.length = 0;
    receiptTimes.length = 0;
    const recordStart = performance.now();
    const first = recorded;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (recorded < first + EVENTS) await record(recorded++);
      }),
    );
    const recordedS = (performance.now() - recordStart) / 1000;
    worker = await startWorker();
    await waitUntil(() => rx.receipts.length > 0, 120_000);
    const meter = await cpuMeter(db, worker);
    const drained = await meter.around(async () => {
      const done = await waitUntil(() => rx.receipts.length >= EVENTS * ENDPOINTS, 600_000);
      return { rps: 0, mean: 0, p50: 0, p99: 0, requests: rx.receipts.length, done };
    });
    await meter.close();
    complete &&= drained.done;
    const seconds = (receiptTimes[receiptTimes.length - 1] - receiptTimes[0]) / 1000;
    const keys = rx.receipts.map((r) => `${r.id}|${r.path}`);
    const unique = new Set(keys).size;
    delivered += unique;
    duplicated += keys.length - unique;
    const loaded = rx.receipts.map((r) => r.latencyMs).sort((a, b) => a - b);
    workerRss = Math.max(workerRss, peakRssMb(worker.pid!));
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    return {
      deliveries_per_s: Math.round(unique / seconds),
      events_recorded_per_s: Math.round(EVENTS / recordedS),
      backlog_age_p50_ms: pct(loaded, 50),
      backlog_age_p99_ms: pct(loaded, 99),
      worker_cpu_ms: drained.app_cpu_ms,
      pg_cpu_ms: drained.pg_cpu_ms,
    };
  };
  const loopRound = async (): Promise<LoopRound> => {
    // As many POSTs in flight as the worker keeps (WEBHOOK_CONCURRENCY, read as the worker reads it).
    const base = await baseline(rx.port, 20_000, config.webhooks.concurrency);
    return { posts_per_s: base.perSecond, cpu_ms: Number((base.cpuMs / 20_000).toFixed(3)) };
  };
  const { engine, loop } = await inAlternatingRounds(ROUNDS, { engine: engineRound, loop: loopRound });
  const med = <T>(rows: T[], f: (x: T) => number | null) => medianOfKnown(rows.map(f), 3);
  const deliveriesPerS = med(engine, (e) => e.deliveries_per_s)!;
  const postsPerS = med(loop, (l) => l.posts_per_s)!;
  const result = {
    events: EVENTS,
    endpoints: ENDPOINTS,
    rounds: ROUNDS,
    in_flight: config.webhooks.concurrency,
    complete,
    deliveries: delivered,
    lost: ROUNDS * EVENTS * ENDPOINTS - delivered,
    duplicated,
    deliveries_per_s: deliveriesPerS,
    events_recorded_per_s: med(engine, (e) => e.events_recorded_per_s),
    idle_latency_ms: { p50: pct(idle, 50), p99: pct(idle, 99) },
    backlog_age_at_receipt_ms: {
      p50: med(engine, (e) => e.backlog_age_p50_ms),
      p99: med(engine, (e) => e.backlog_age_p99_ms),
    },
    worker_cpu_ms_per_delivery: med(engine, (e) => e.worker_cpu_ms),
    worker_pg_cpu_ms_per_delivery: med(engine, (e) => e.pg_cpu_ms),
    worker_peak_rss_mb: workerRss,
    bench_process_peak_rss_mb: peakRssMb(process.pid),
    baseline_signed_posts_per_s: postsPerS,
    baseline_cpu_ms_per_post: med(loop, (l) => l.cpu_ms),
    ratio_to_baseline: Math.round((deliveriesPerS / postsPerS) * 100) / 100,
    ratio_target: '≥ 0.7',
    engine_rounds: engine,
    loop_rounds: loop,
    load_average_1_5_15: loadavg().map((v) => Number(v.toFixed(2))),
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/webhooks.json', `${JSON.stringify(result, null, 2)}\n`);
  const table = [
    '| metric | value |',
    '|---|---|',
    ...Object.entries(result).map(([k, v]) => `| ${k} | ${typeof v === 'object' ? JSON.stringify(v) : v} |`),
  ].join('\n');
  writeFileSync('bench/results/webhooks.md', `${table}\n`);
  process.stdout.write(`${table}\n`);

  await rx.close();
  await api.close();
  await db.drop();
}

runIfMain(module, main);
