/**
 * What the bare baselines (bare-public.ts, bare-writes.ts) share: a `pg` pool set up as the app's, and a
 * `node:http` server that tells the bench it listens and stops cleanly on SIGTERM.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';

/** A pool of the app's size and settings on DATABASE_URL, named `application_name` in pg_stat_activity. */
export function barePool(applicationName: string, o: { pipeline?: boolean } = {}): Pool {
  const pool = new Pool({
    // `pipeline`: as the app's pool (createDataSource): statements written while earlier ones await their answers.
    ...(o.pipeline ? ({ pipeline: true } as object) : {}),
    connectionString: process.env.DATABASE_URL,
    max: 10,
    // Idle connections stay open: a backend closed mid-run would void the bench's PostgreSQL CPU figure, and
    // reconnecting is no work a request needs.
    idleTimeoutMillis: 0,
    // As the app's pool (src/database/data-source.factory.ts): no JIT for short OLTP queries.
    options: '-c jit=off',
    application_name: applicationName,
  });
  pool.on('error', () => undefined);
  return pool;
}

/** Serves `handle` on 127.0.0.1:PORT, tells the parent process when it listens, and ends `pool` on SIGTERM. */
export function serveBare(handle: (req: IncomingMessage, res: ServerResponse) => void, pool: Pool): void {
  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
  process.on('SIGTERM', () => {
    server.close(() => void pool.end().then(() => process.exit(0)));
    server.closeAllConnections();
  });
}
