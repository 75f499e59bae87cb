import 'reflect-metadata';
import { createServer, type AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigError, loadConfig, Config, configRedactor, redactUrlPasswords } from './config/config';
import { resolveDatabase, runMigrations } from './database/database-setup';
import { runSeed } from './seed/seed-runner';
import { createApp, nestLogLevels } from './app.factory';
import { createCliContext } from './cli/cli.module';
import { Transactions } from './database/unit-of-work';
import { inIdempotentRequest } from './visitor/platform/idempotency';
import { QuietStartLogger } from './common/quiet-logger';
import type { DemoAccess } from './seed/seeder';

function exitOnConfigError(e: unknown): never {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw e;
}

/** The one line a person reads when the port is taken (before the database starts, and again should listen race). */
function portTakenLine(config: Config): string {
  return `Gatehouse cannot listen on ${config.host}:${config.port}: the port is taken (is Gatehouse already running?); stop that process or set PORT to a free port, e.g. PORT=${config.port + 1} npm start\n`;
}

function portFree(host: string, port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((done) => {
    const probe = createServer()
      .once('error', (e: NodeJS.ErrnoException) => done(e.code !== 'EADDRINUSE'))
      .once('listening', () => probe.close(() => done(true)))
      .listen({ port, host, exclusive: true });
  });
}

/** `http://localhost:3000` → the same with the port the server really listens on (PORT=0 picks one). */
function withPort(url: string, configured: number, actual: number): string {
  if (configured === actual) return url;
  const u = new URL(url);
  if (u.port === String(configured)) u.port = String(actual);
  return u.toString().replace(/\/$/, '');
}

/** The one block a start ends with: where everything is, and on a first start the demo sign-in and key. */
function readyBlock(config: Config, port: number, embedded: boolean, demo: DemoAccess | null): string {
  const at = (url: string) => withPort(url, config.port, port);
  const base = at(config.baseUrl);
  const lines = [
    `Gatehouse is ready on ${at(`http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`)}`,
    `  API reference   ${at(config.docsUrl)}`,
    `  visitor API     ${base}/v1`,
    `  public API      ${base}/public/v1`,
    `  console         ${at(config.appUrl)}/console (run the front door from a screen; signs you in first)`,
    `  health          ${base}/health/ready`,
    `  database        ${embedded ? `embedded PostgreSQL, 127.0.0.1:${config.embeddedPg.port}, data in ${config.embeddedPg.dir}` : 'DATABASE_URL'}`,
  ];
  if (demo)
    lines.push(
      '',
      'Demo organisation (test mode), shown once; "npx gatehouse demo" prints a new password and key:',
      `  console sign-in  ${demo.email} / ${demo.password}`,
      `  secret key       ${demo.key}`,
      `  try              curl -H "Authorization: Bearer ${demo.key}" ${base}/v1/organisation`,
      '  for the README\'s "Try it":',
      `  export KEY=${demo.key} SITE=${demo.site_id} HOST=${demo.host_id}`,
    );
  lines.push(
    '',
    `Stop with Ctrl+C.${config.logLevel === 'debug' ? '' : ' LOG_LEVEL=debug shows every route.'}`,
  );
  return lines.join('\n');
}

/**
 * Test-only crash points (honoured only with NODE_ENV=test): `GATEHOUSE_FAULT_BEFORE_COMMIT=exit` or
 * `GATEHOUSE_FAULT_AFTER_COMMIT=exit` end the process right before or right after the commit of a transaction
 * run by an idempotent /v1 POST, as a crash or a kill would, before any response is sent.
 */
function installFaults(config: Config, app: NestFastifyApplication): void {
  if (config.nodeEnv !== 'test') return;
  const crash = (point: string) =>
    process.env[`GATEHOUSE_FAULT_${point}_COMMIT`] === 'exit'
      ? () => {
          if (inIdempotentRequest()) process.exit(70);
        }
      : undefined;
  const before = crash('BEFORE');
  app.get(Transactions).participate({
    beforeCommit: before && (() => Promise.resolve(before())),
    afterCommit: crash('AFTER'),
  });
}

/** Hides secrets in everything printed: the config's once it is loaded (see configRedactor). */
let redact: (text: string) => string = redactUrlPasswords;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  if (!(await portFree(config.host, config.port))) {
    process.stderr.write(portTakenLine(config));
    process.exit(1);
  }
  redact = configRedactor(config);
  const logger = new QuietStartLogger(
    'Gatehouse',
    { json: config.nodeEnv === 'production', logLevels: nestLogLevels(config.logLevel) },
    redact,
  );

  const db = await resolveDatabase(config, (l) => logger.warn(l, 'EmbeddedPostgres'));
  const migrated = await runMigrations(db.url);
  if (migrated.applied.length) {
    logger.log(`applied ${migrated.applied.length} migration(s)`);
    logger.debug(`applied migrations: ${migrated.applied.join(', ')}`);
  }
  const app: NestFastifyApplication = await createApp(config, db.url, { logger });
  installFaults(config, app);
  let demo: DemoAccess | null = null;
  if (config.seedOnFirstStart) {
    // In this process's object graph; one that does not serve the visitor API (SURFACES) seeds in the CLI's.
    const graph = config.surfaces.includes('visitor') ? app : await createCliContext(config, db.url, logger);
    try {
      const seed = await runSeed(graph, {
        scale: 1,
        onlyIfFirst: true,
        log: (l) => logger.debug(l, 'Seed'),
        onDemoAccess: (a) => (demo = a),
      });
      if (seed.seeded) logger.log('seeded demo data (first start)', 'Seed');
    } finally {
      if (graph !== app) await graph.close();
    }
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    process.stderr.write(portTakenLine(config));
    await app.close();
    await db.embedded?.stop();
    process.exit(1);
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  // One block, written as is (not as log lines) so it can be read and copied; JSON logs in production.
  if (config.nodeEnv === 'production') logger.log(`listening on port ${port}`);
  else process.stdout.write(`\n${redact(readyBlock(config, port, db.embedded !== null, demo))}\n\n`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight requests`);
    const force = setTimeout(() => {
      logger.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await db.embedded?.stop();
      logger.log('stopped');
      process.exit(0);
    } catch (e) {
      logger.error(`shutdown failed: ${(e as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(
    `Gatehouse failed to start: ${redact(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`,
  );
  process.exit(1);
});
