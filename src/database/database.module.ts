import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource } from './data-source.factory';
import { DatabaseHealth } from './database-health';
import { READ_DATA_SOURCE, ReadReplica } from './read-replica';
import { Transactions } from './unit-of-work';

export const DATABASE_URL = Symbol('DATABASE_URL');

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/**
 * Provides the initialised TypeORM DataSource for the resolved database URL (embedded or DATABASE_URL), and the
 * READ_DATA_SOURCE of lag-tolerant reads: routed to the replica at `readUrl` when given (see ReadReplica), else
 * the same DataSource.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize = 10, readUrl: string | null = null): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DATABASE_URL, useValue: url },
        { provide: DataSource, useFactory: async () => createDataSource({ url, poolSize }).initialize() },
        {
          provide: ReadReplica,
          inject: [DataSource],
          useFactory: async (primary: DataSource) => {
            const replica = new ReadReplica(primary, readUrl, poolSize);
            await replica.start();
            return replica;
          },
        },
        { provide: READ_DATA_SOURCE, inject: [ReadReplica], useFactory: (r: ReadReplica) => r.source },
        DataSourceCloser,
        DatabaseHealth,
        Transactions,
      ],
      exports: [DataSource, READ_DATA_SOURCE, DATABASE_URL, DatabaseHealth, Transactions],
    };
  }
}
