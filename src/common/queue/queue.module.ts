import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { Config } from '../../config/config';
import { CONFIG } from '../../config/config.module';

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

/**
 * BullMQ's root configuration (Redis connection, key prefix). Domains that enqueue import this module and
 * `BullModule.registerQueue` their own queue; a process that loads no such domain opens no queue connection.
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
  exports: [BullModule],
})
export class QueueModule {}
