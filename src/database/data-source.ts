import { loadConfig } from '../config/config';
import { createDataSource } from './data-source.factory';
import { EMBEDDED_DB_NAME } from './database-setup';

/**
 * The DataSource the TypeORM CLI uses (`npm run migration:generate -- migrations/<Name>`): DATABASE_URL, or
 * the embedded PostgreSQL of `npm start` (which must be running).
 */
const config = loadConfig();
const url =
  config.databaseUrl ??
  `postgres://postgres:${encodeURIComponent(config.embeddedPg.password)}@127.0.0.1:${config.embeddedPg.port}/${EMBEDDED_DB_NAME}`;

export default createDataSource({ url, applicationName: 'gatehouse-typeorm-cli' });
