/**
 * `npm run bench -- cli`: the wall time and peak memory of an operator command, `gatehouse keys list --org <org>`
 * (read-only; boots the CLI's Nest graph, src/cli/cli.module.ts, on a migrated database), run as a child process
 * N times (BENCH_CLI_RUNS, default 20), against a baseline in the same run: `node` that loads nothing of Gatehouse,
 * connects to PostgreSQL with `pg` and runs one query (the floor of any command that reads the database). A third
 * series, `gatehouse config`, is the CLI without the graph (no database). Runs alternate, so a busy machine slows
 * all alike. Reports p50/p99 wall time, the ratio to the baseline and peak RSS; writes bench/results/cli.{json,md}.
 * Target: the command's p50 ≤ 1.5 s. BENCH_CLI_BEFORE=<another build's dist/src/cli.js> adds that build's run of the
 * same command as a fourth series (e.g. main's, to compare before and after a change).
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchContext, benchDatabase, benchEnterpriseOrg, runIfMain } from './support';
import { platformServices } from '../src/visitor/visitor.command';

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 20);
const CLI = join(__dirname, '../src/cli.js');

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
    writeFileSync(join(process.cwd(), 'bench/results/cli.md'), md);
    console.log(md);
  } finally {
    await db.drop();
  }
}

runIfMain(module, main);
