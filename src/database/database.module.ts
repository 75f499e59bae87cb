import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource } from './data-source.factory';
import { DatabaseHealth } from './database-health';
import { Transactions } from './unit-of-work';

export const DATABASE_URL = Symbol('DATABASE_URL');

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/** Provides the initialised TypeORM DataSource for the resolved database URL (embedded or DATABASE_URL). */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize = 10): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DATABASE_URL, useValue: url },
        { provide: DataSource, useFactory: async () => createDataSource({ url, poolSize }).initialize() },
        DataSourceCloser,
        DatabaseHealth,
        Transactions,
      ],
      exports: [DataSource, DATABASE_URL, DatabaseHealth, Transactions],
    };
  }
}
