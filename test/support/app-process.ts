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

export interface AppProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** The compiled service (`dist/src/main.js`) as a child process on `databaseUrl`, listening when returned. */
export async function startAppProcess(
  databaseUrl: string,
  env: Record<string, string>,
  ms = 60_000,
): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      RUN_WORKER: 'false',
      SEED_ON_FIRST_START: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + ms;
  for (;;) {
    const up = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out, exited };
}
