import { Client } from 'pg';
import type { Config } from '../config/config';
import { createDataSource } from './data-source.factory';
import { startEmbeddedPostgres, EmbeddedPgHandle } from './embedded-postgres';

export const EMBEDDED_DB_NAME = 'gatehouse';

export interface ResolvedDatabase {
  url: string;
  embedded: EmbeddedPgHandle | null;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL (started here if not already running). */
export async function resolveDatabase(
  config: Config,
  log: (line: string) => void,
): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres({
    ...config.embeddedPg,
    log: (l) => /error|FATAL/i.test(l) && log(l),
  });
  await createDatabaseIfMissing(embedded.url, EMBEDDED_DB_NAME);
  const url = new URL(embedded.url);
  url.pathname = `/${EMBEDDED_DB_NAME}`;
  return { url: url.toString(), embedded };
}

export async function createDatabaseIfMissing(adminUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (e) {
    if ((e as { code?: string }).code !== '42P04') throw e; // created concurrently
  } finally {
    await client.end();
  }
}

export interface MigrationResult {
  applied: string[];
  /** true when the database had no migrations before this run (a fresh install). */
  fresh: boolean;
}

const MIGRATION_LOCK = 4_242_001;

/** Applies pending migrations; an advisory lock makes concurrent starters (several api replicas) take turns. */
export async function runMigrations(url: string): Promise<MigrationResult> {
  const lock = new Client({ connectionString: url, application_name: 'gatehouse-migrate-lock' });
  await lock.connect();
  await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  const ds = await createDataSource({ url, poolSize: 2, applicationName: 'gatehouse-migrate' })
    .initialize()
    .catch(async (e) => {
      await lock.end();
      throw e;
    });
  try {
    const [{ exists }] = (await ds.query(
      `SELECT to_regclass('public.migrations') IS NOT NULL AS exists`,
    )) as { exists: boolean }[];
    const before = exists
      ? Number(((await ds.query('SELECT count(*)::int AS n FROM public.migrations')) as { n: number }[])[0].n)
      : 0;
    const applied = await ds.runMigrations({ transaction: 'each' });
    return { applied: applied.map((m) => m.name), fresh: before === 0 };
  } finally {
    await ds.destroy();
    await lock.end();
  }
}

export async function revertLastMigration(url: string): Promise<void> {
  const ds = await createDataSource({ url, poolSize: 1, applicationName: 'gatehouse-migrate' }).initialize();
  try {
    await ds.undoLastMigration({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}
