import { DataSource } from 'typeorm';
import { loadMigrations } from './loader';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
  /** How long getting a connection may take (default 5 s). */
  connectTimeoutMs?: number;
  /** A statement without an answer after this long fails on the client side (default: none). */
  queryTimeoutMs?: number;
}

export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    // no entities: every domain describes its rows with row interfaces and SQL (docs/decisions.md)
    entities: [],
    migrations: loadMigrations(),
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: opts.poolSize ?? 10,
      application_name: opts.applicationName ?? 'gatehouse',
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      ...(opts.queryTimeoutMs ? { query_timeout: opts.queryTimeoutMs } : {}),
      // Every query of this service is a short OLTP query; PostgreSQL's JIT compiler only adds latency to them
      // (hundreds of milliseconds when a plan's cost estimate crosses jit_above_cost).
      options: '-c jit=off',
    },
  });
}
