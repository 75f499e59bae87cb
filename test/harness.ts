import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { INestApplicationContext, LoggerService, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, Config } from '../src/config/config';
import { runMigrations } from '../src/database/database-setup';
import { createApp, createContext } from '../src/app.factory';

const RUN = process.env.TEST_RUN_ID ?? 'adhoc';
const TEMPLATE = `gh_${RUN}_tpl`;
const LOCK_KEY = 7_263_541;

function adminUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL;
  if (!url)
    throw new Error('TEST_ADMIN_DATABASE_URL is not set: run the tests with `npm test` (jest global setup)');
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file, cloned from a template that is migrated once per run (the first file
 * to arrive builds it under an advisory lock; a half-built template is never visible under its final name).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  const name = `gh_${RUN}_${randomBytes(5).toString('hex')}`;
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE]);
    if (rowCount === 0) {
      const building = `${TEMPLATE}_wip`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building}`);
      await runMigrations(databaseUrl(building));
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
    }
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function testConfig(env: Record<string, string> = {}): Config {
  // A Redis key prefix of its own per config, so test files running in parallel never share rate-limit
  // counters; pass the same REDIS_KEY_PREFIX to two apps to make them share (multi-instance tests).
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    REDIS_URL: process.env.REDIS_URL,
    REQUEST_LOG_FLUSH_MS: '50',
    REDIS_KEY_PREFIX: `ghtest:${randomBytes(6).toString('hex')}`,
    ...env,
  });
}

/** The application (or its object graph) on its own database, and how to close both. */
export interface Booted<A extends INestApplicationContext> {
  app: A;
  config: Config;
  db: TestDatabase;
  close(): Promise<void>;
}
export type TestApp = Booted<NestFastifyApplication>;
export type ServiceContext = Booted<INestApplicationContext>;

export interface BootOptions {
  env?: Record<string, string>;
  extraModules?: Type[];
  logger?: LoggerService;
  db?: TestDatabase;
}

async function boot<A extends INestApplicationContext>(
  opts: BootOptions,
  create: typeof createContext,
): Promise<Booted<A>> {
  const db = opts.db ?? (await createTestDatabase());
  const config = testConfig(opts.env);
  const app = (await create(config, db.url, {
    logger: opts.logger ?? ['fatal'],
    extraModules: opts.extraModules,
  })) as A;
  return {
    app,
    config,
    db,
    close: async () => {
      await app.close();
      if (!opts.db) await db.drop();
    },
  };
}

/** The real application on its own database, initialised and ready for `app.inject` (the e2e tier). */
export function bootTestApp(opts: BootOptions = {}): Promise<TestApp> {
  return boot<NestFastifyApplication>(opts, createApp);
}

/**
 * The service tier: the application's object graph (the server's modules, services and subscribers) on a cloned
 * database, without HTTP. Tests call services and repositories through `app.get(...)`.
 */
export function bootServiceContext(opts: BootOptions = {}): Promise<ServiceContext> {
  return boot<INestApplicationContext>(opts, createContext);
}

/** A logger that keeps what it is given, for asserting on log output. */
export class CapturingLogger implements LoggerService {
  readonly lines: { level: string; message: unknown; extra: unknown[] }[] = [];
  log(message: unknown, ...extra: unknown[]) {
    this.lines.push({ level: 'log', message, extra });
  }
  error(message: unknown, ...extra: unknown[]) {
    this.lines.push({ level: 'error', message, extra });
  }
  warn(message: unknown, ...extra: unknown[]) {
    this.lines.push({ level: 'warn', message, extra });
  }
  debug() {}
  verbose() {}
  fatal(message: unknown, ...extra: unknown[]) {
    this.lines.push({ level: 'fatal', message, extra });
  }
  text(): string {
    return this.lines
      .map(
        (l) =>
          `${l.level} ${typeof l.message === 'string' ? l.message : JSON.stringify(l.message)} ${l.extra.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join(' ')}`,
      )
      .join('\n');
  }
}
