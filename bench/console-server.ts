/**
 * The app as it runs (no bench routes) for `bench console`: listens on PORT, tells its parent when ready, stops on
 * SIGTERM. Its own file because the console bench needs none of bench/server.ts's baseline routes.
 */
import 'reflect-metadata';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/config/config';

async function main() {
  const config = loadConfig();
  const app = await createApp(config, String(process.env.DATABASE_URL), { logger: ['error'] });
  await app.listen({ port: config.port, host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  process.send?.('ready');
}

void main();
