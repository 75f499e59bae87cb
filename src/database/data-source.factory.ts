import { DataSource } from 'typeorm';
import { loadEntities, loadMigrations } from './loader';
import { SnakeNamingStrategy } from './naming.strategy';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    entities: loadEntities(),
    migrations: loadMigrations(),
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
    extra: {
      max: opts.poolSize ?? 10,
      application_name: opts.applicationName ?? 'gatehouse',
      connectionTimeoutMillis: 5000,
      // Every query of this service is a short OLTP query; PostgreSQL's JIT compiler only adds latency to them
      // (hundreds of milliseconds when a plan's cost estimate crosses jit_above_cost).
      options: '-c jit=off',
    },
  });
}
