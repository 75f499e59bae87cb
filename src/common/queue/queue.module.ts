import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Config } from '../../config/config';
import { CONFIG } from '../../config/config.module';
import { JobKind, JobQueue } from './job-queue';

/** The provider token of a registered job kind (what the worker's handler check looks for). */
export const jobKindToken = (name: string): string => `job-kind:${name}`;

/** ioredis options of BullMQ's connections from REDIS_URL. */
function connectionOf(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
    retryStrategy: (n: number) => Math.min(250 * n, 2000),
  };
}

/** The module `QueueModule.forJobs` makes for a domain's job kinds. */
@Module({})
class JobKindsModule {}

/**
 * BullMQ's root configuration (Redis connection, key prefix) and the one producer, `JobQueue`. A domain whose
 * requests hand jobs to workers imports `QueueModule.forJobs(<its kinds>)`, which registers each kind's queue; a
 * process that loads no such domain opens no queue connection.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [CONFIG],
      useFactory: (c: Config) => ({
        connection: connectionOf(c.redisUrl),
        prefix: `${c.redisKeyPrefix}:bull`,
      }),
    }),
  ],
  providers: [JobQueue],
  exports: [BullModule, JobQueue],
})
export class QueueModule {
  static forJobs(...kinds: JobKind[]): DynamicModule {
    return {
      module: JobKindsModule,
      imports: [QueueModule, ...kinds.map((k) => BullModule.registerQueue({ name: k.queue }))],
      providers: kinds.map((k) => ({
        provide: jobKindToken(k.name),
        inject: [JobQueue, getQueueToken(k.queue)],
        useFactory: (jobs: JobQueue, queue: Queue) => jobs.register(k, queue),
      })),
      exports: [QueueModule],
    };
  }
}
