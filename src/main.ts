import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigError, loadConfig, Config } from './config/config';
import { resolveDatabase, runMigrations } from './database/database-setup';
import { runSeed } from './seed/seed-runner';
import { createApp, nestLogLevels } from './app.factory';
import { Transactions } from './database/unit-of-work';
import { inIdempotentRequest } from './visitor/platform/idempotency';

function exitOnConfigError(e: unknown): never {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw e;
}

function printUrls(config: Config, logger: ConsoleLogger, embedded: boolean): void {
  const local = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  const lines = [
    `Gatehouse is listening on ${local}`,
    `  public content API   ${config.baseUrl}/public/v1   (openapi: /public/v1/openapi.json)`,
    `  visitor API          ${config.baseUrl}/v1          (openapi: /v1/openapi.json)`,
    `  console              ${config.appUrl}/console`,
    `  API reference        ${config.docsUrl}`,
    `  health               ${local}/health/live  ${local}/health/ready`,
    `  database             ${embedded ? `embedded PostgreSQL on 127.0.0.1:${config.embeddedPg.port} (data in ${config.embeddedPg.dir})` : 'DATABASE_URL'}`,
  ];
  for (const l of lines) logger.log(l);
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

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  const logger = new ConsoleLogger('Gatehouse', {
    json: config.nodeEnv === 'production',
    logLevels: nestLogLevels(config.logLevel),
  });

  const db = await resolveDatabase(config, (l) => logger.warn(l, 'EmbeddedPostgres'));
  const migrated = await runMigrations(db.url);
  if (migrated.applied.length) logger.log(`applied migrations: ${migrated.applied.join(', ')}`);
  if (config.seedOnFirstStart) {
    const seed = await runSeed(db.url, { scale: 1, onlyIfFirst: true, log: (l) => logger.log(l, 'Seed') });
    if (seed.seeded) logger.log('seeded demo data (first start)', 'Seed');
  }

  const app: NestFastifyApplication = await createApp(config, db.url, { logger });
  installFaults(config, app);
  await app.listen({ port: config.port, host: config.host });
  printUrls(config, logger, db.embedded !== null);

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
    `Gatehouse failed to start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});
