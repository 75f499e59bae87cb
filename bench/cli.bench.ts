/**
 * `npm run bench -- cli`: the wall time and peak memory of an operator command, `gatehouse keys list --org <org>`
 * (read-only; boots the CLI's Nest graph, src/cli/cli.module.ts, on a migrated database), run as a child process
 * N times (BENCH_CLI_RUNS, default 20), against a baseline in the same run: `node` that loads nothing of Gatehouse,
 * connects to PostgreSQL with `pg` and runs one query (the floor of any command that reads the database). A third
 * series, `gatehouse config`, is the CLI without the graph (no database). Runs alternate, so a busy machine slows
 * all alike. Reports p50/p99 wall time, the ratio to the baseline and peak RSS; writes bench/results/cli.{json,md}.
 * Target: the command's p50 ≤ 1.5 s. BENCH_CLI_BEFORE=<another build's dist/src/cli.js> adds that build's run of the
 * same command as a fourth series (e.g. main's, to compare before and after a change).
 *
 * Then the integrator CLI (`gatehouse-dev`, dist/src/integrator/main.js) against the service running in its own
 * process (bench/server.js) on the same database, with a test key and 25 test-mode events: `gatehouse-dev events
 * list` against a baseline that is `node` plus one `fetch` of the same page printed line by line
 * (bench/cli-dev-baseline.ts), and `gatehouse-dev --help` (no network) against bare `node -e 0`. Same runs,
 * alternating, p50/p99, ratios and peak RSS. Target: each `gatehouse-dev` p50 ≤ 500 ms.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchContext,
  benchDatabase,
  benchEnterpriseOrg,
  BenchDatabase,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';
import { platformServices } from '../src/visitor/visitor.command';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20);
const CLI = join(__dirname, '../src/cli.js');
const DEV_CLI = join(__dirname, '../src/integrator/main.js');
const PORT = 40_900 + Math.floor(Math.random() * 500);

/** One child process's wall time in ms; fails on a non-zero exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      resolve(ms);
    });
  });
}

/** Runs `file` (argv as if run directly) and prints its own peak RSS (VmHWM) on stderr as it exits. */
const WITH_PEAK = (file: string) => [
  '-e',
  `process.on('exit', () => { const m = /VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8')); process.stderr.write('PEAK ' + (m ? m[1] : 'NaN') + '\\n'); }); require(${JSON.stringify(file)});`,
];

async function peakOf(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...WITH_PEAK(file), file, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      const m = /PEAK (\d+)/.exec(stderr);
      if (!m) return reject(new Error(`no peak from ${file}: ${stderr}`));
      resolve(Math.round(Number(m[1]) / 1024));
    });
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]);
};

export async function main(): Promise<void> {
  const db = await benchDatabase('cli');
  try {
    const graph = await benchContext(db);
    const organisation = await benchEnterpriseOrg(platformServices(graph));
    // the integrator CLI's key: test mode, reads events, makes the people whose events it lists
    const { key: devKey } = await platformServices(graph).keys.create(
      organisation.id,
      { name: 'bench gatehouse-dev', kind: 'secret', mode: 'test', scopes: ['events:read', 'people:write'] },
      { type: 'operator', id: 'bench' },
    );
    await graph.close();
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'error',
      REDIS_KEY_PREFIX: `bench:${db.name}`,
    };
    const command = ['keys', 'list', '--org', organisation.id];
    const baselineScript = join(__dirname, 'cli-baseline.js');
    // Warm the file cache once each.
    await timed([CLI, ...command], env);
    await timed([baselineScript, organisation.id], env);
    const cli: number[] = [];
    const base: number[] = [];
    const bare: number[] = [];
    const before: number[] = [];
    const BEFORE = process.env.BENCH_CLI_BEFORE;
    for (let i = 0; i < RUNS; i++) {
      base.push(await timed([baselineScript, organisation.id], env));
      cli.push(await timed([CLI, ...command], env));
      bare.push(await timed([CLI, 'config'], env));
      if (BEFORE) before.push(await timed([BEFORE, ...command], env));
    }
    const beforePeak = BEFORE ? await peakOf(BEFORE, command, env) : null;
    const cliPeak = await peakOf(CLI, command, env);
    const basePeak = await peakOf(baselineScript, [organisation.id], env);
    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, ${cpus().length} cores, node ${process.version}`,
      load_average_1m: Number(loadavg()[0].toFixed(1)),
      runs: RUNS,
      command: `gatehouse ${command.slice(0, 3).join(' ')} <org>`,
      baseline: 'node + pg: connect, one query, print JSON',
      command_ms: { p50: pct(cli, 50), p99: pct(cli, 99), min: Math.round(Math.min(...cli)) },
      baseline_ms: { p50: pct(base, 50), p99: pct(base, 99), min: Math.round(Math.min(...base)) },
      config_command_ms: { p50: pct(bare, 50), p99: pct(bare, 99), min: Math.round(Math.min(...bare)) },
      before: BEFORE
        ? {
            cli: BEFORE,
            ms: { p50: pct(before, 50), p99: pct(before, 99), min: Math.round(Math.min(...before)) },
            peak_rss_mb: beforePeak,
          }
        : null,
      ratio_p50: Number((pct(cli, 50) / pct(base, 50)).toFixed(2)),
      command_peak_rss_mb: cliPeak,
      baseline_peak_rss_mb: basePeak,
      targets: { command_p50_ms: '≤ 1500' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/cli.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `# bench cli (${result.date}, ${result.machine}, load ${result.load_average_1m}, ${RUNS} runs each, alternating)`,
      '',
      '| run | p50 ms | p99 ms | min ms | peak RSS MB |',
      '|---|---|---|---|---|',
      `| baseline: ${result.baseline} | ${result.baseline_ms.p50} | ${result.baseline_ms.p99} | ${result.baseline_ms.min} | ${basePeak} |`,
      `| gatehouse config (the CLI and its commands loaded; no database, no Nest graph) | ${result.config_command_ms.p50} | ${result.config_command_ms.p99} | ${result.config_command_ms.min} | |`,
      `| ${result.command} (Nest graph) | ${result.command_ms.p50} | ${result.command_ms.p99} | ${result.command_ms.min} | ${cliPeak} |`,
      ...(result.before
        ? [
            `| the same, before (${BEFORE}) | ${result.before.ms.p50} | ${result.before.ms.p99} | ${result.before.ms.min} | ${beforePeak} |`,
          ]
        : []),
      '',
      `Command p50 ${result.command_ms.p50} ms (target ≤ 1500), ${result.ratio_p50}× the baseline's.`,
      '',
    ].join('\n');
    const dev = await integratorSeries(db, devKey);
    writeFileSync(
      join(process.cwd(), 'bench/results/cli.json'),
      `${JSON.stringify({ ...result, integrator: dev.result }, null, 2)}\n`,
    );
    const all = `${md}\n${dev.md}`;
    writeFileSync(join(process.cwd(), 'bench/results/cli.md'), all);
    console.log(all);
  } finally {
    await db.drop();
  }
}

const stats = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99), min: Math.round(Math.min(...xs)) });

/** The integrator CLI's series (see the file's comment): its result object and Markdown table. */
async function integratorSeries(
  db: BenchDatabase,
  key: string,
): Promise<{ result: Record<string, unknown>; md: string }> {
  const app = await startBenchServer(db, PORT, { TEST_MODE_RATE_PER_MINUTE: '100000000' });
  try {
    const baseUrl = `http://127.0.0.1:${PORT}`;
    // 25 test-mode events (person.created), so the page the commands print is full.
    for (let i = 0; i < 25; i++) {
      const res = await fetch(`${baseUrl}/v1/people`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ name: `Bench Person ${i}`, email: `bench.person.${i}@bench.test` }),
      });
      if (res.status !== 201) throw new Error(`POST /v1/people answered ${res.status}`);
    }
    const env = {
      ...process.env,
      GATEHOUSE_BASE_URL: baseUrl,
      GATEHOUSE_API_KEY: key,
      NO_COLOR: '1',
    };
    const list = [DEV_CLI, 'events', 'list', '--limit', '25'];
    const help = [DEV_CLI, '--help'];
    const baselineScript = join(__dirname, 'cli-dev-baseline.js');
    const bareNode = ['-e', '0'];
    await timed(list, env);
    await timed([baselineScript], env);
    const series = { list: [] as number[], base: [] as number[], help: [] as number[], bare: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      series.base.push(await timed([baselineScript], env));
      series.list.push(await timed(list, env));
      series.bare.push(await timed(bareNode, env));
      series.help.push(await timed(help, env));
    }
    const listPeak = await peakOf(DEV_CLI, list.slice(1), env);
    const basePeak = await peakOf(baselineScript, [], env);
    const result = {
      events_list: {
        command: 'gatehouse-dev events list --limit 25',
        ms: stats(series.list),
        peak_rss_mb: listPeak,
      },
      events_list_baseline: {
        what: 'node + one fetch of GET /v1/events?limit=25, printed',
        ms: stats(series.base),
        peak_rss_mb: basePeak,
      },
      help: { command: 'gatehouse-dev --help', ms: stats(series.help) },
      help_baseline: { what: 'node -e 0', ms: stats(series.bare) },
      ratio_p50: {
        events_list: Number((pct(series.list, 50) / pct(series.base, 50)).toFixed(2)),
        help: Number((pct(series.help, 50) / pct(series.bare, 50)).toFixed(2)),
      },
      targets: { gatehouse_dev_p50_ms: '≤ 500' },
    };
    const row = (name: string, m: { p50: number; p99: number; min: number }, peak: number | string = '') =>
      `| ${name} | ${m.p50} | ${m.p99} | ${m.min} | ${peak} |`;
    const md = [
      `## integrator CLI (gatehouse-dev, against the service in its own process; ${RUNS} runs each, alternating)`,
      '',
      '| run | p50 ms | p99 ms | min ms | peak RSS MB |',
      '|---|---|---|---|---|',
      row(`baseline: ${result.events_list_baseline.what}`, result.events_list_baseline.ms, basePeak),
      row(result.events_list.command, result.events_list.ms, listPeak),
      row(`baseline: ${result.help_baseline.what}`, result.help_baseline.ms),
      row(result.help.command, result.help.ms),
      '',
      `events list p50 ${result.events_list.ms.p50} ms (target ≤ 500), ${result.ratio_p50.events_list}× its baseline's; ` +
        `--help p50 ${result.help.ms.p50} ms, ${result.ratio_p50.help}× bare node's.`,
      '',
    ].join('\n');
    return { result, md };
  } finally {
    await stopBenchServer(app);
  }
}

runIfMain(module, main);
