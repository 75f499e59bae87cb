import { ChildProcess, spawn } from 'node:child_process';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';

/** A port the OS says is free now (a random one may be taken, e.g. as the local end of an outgoing connection). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface ChildOfApp {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
}

export interface AppProcess extends ChildOfApp {
  url: string;
}

/** `dist/src/<script>` as a child process on `databaseUrl` (test mode, no seed), its output collected. */
function spawnCompiled(script: string, databaseUrl: string, env: Record<string, string>): ChildOfApp {
  const child = spawn(process.execPath, [join(__dirname, '../../dist/src', script)], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      SEED_ON_FIRST_START: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Waits until `ready()` (polled every 100 ms); kills the child and fails with its output if it exits or `ms` pass. */
async function waitReady(app: ChildOfApp, what: string, ready: () => Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    if (await ready()) return;
    if (app.child.exitCode !== null || Date.now() > end) {
      app.child.kill('SIGKILL');
      throw new Error(`the ${what} did not start:\n${app.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The compiled service (`dist/src/main.js`) as a child process on `databaseUrl`, listening when returned. */
export async function startAppProcess(
  databaseUrl: string,
  env: Record<string, string>,
  ms = 60_000,
): Promise<AppProcess> {
  const port = await freePort();
  const app = spawnCompiled('main.js', databaseUrl, {
    PORT: String(port),
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const live = () =>
    fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
  await waitReady(app, 'service', live, ms);
  return { ...app, url };
}

/**
 * The compiled worker (`dist/src/worker.js`, the production shape's background process) on `databaseUrl`,
 * returned once it has logged that it started (so `LOG_LEVEL` must show `log` lines: `info` or `debug`).
 */
export async function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string>,
  ms = 60_000,
): Promise<ChildOfApp> {
  const worker = spawnCompiled('worker.js', databaseUrl, { RUN_WORKER: 'true', ...env });
  await waitReady(worker, 'worker', async () => worker.output().includes('worker started'), ms);
  return worker;
}
