import 'reflect-metadata';
import { ConfigError, configRedactor, loadConfig } from './config/config';
import { QuietStartLogger } from './common/quiet-logger';
import { resolveDatabase } from './database/database-setup';
import { createApp, nestLogLevels } from './app.factory';

/**
 * The worker process of the production shape: background jobs only (retention purges now; deliveries,
 * passes, expiries as later issues add them). It serves no HTTP.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = { ...loadConfig(), runWorker: true, surfaces: [] };
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78);
    }
    throw e;
  }
  const logger = new QuietStartLogger(
    'Worker',
    { json: config.nodeEnv === 'production', logLevels: nestLogLevels(config.logLevel) },
    configRedactor(config),
  );
  const db = await resolveDatabase(config, (l) => logger.warn(l, 'EmbeddedPostgres'));
  const app = await createApp(config, db.url, { logger });
  logger.log('worker started');
  const stop = async () => {
    await app.close();
    await db.embedded?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

void main();
