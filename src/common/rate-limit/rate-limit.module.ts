import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RedisService } from '../../redis/redis.service';
import { CONFIG } from '../../config/config.module';
import type { Config } from '../../config/config';
import { RateLimitGuard } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** @nestjs/throttler on Redis storage; the allowance per request comes from the surface (see RateLimitGuard). */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [RedisService, CONFIG],
      useFactory: (redis: RedisService, config: Config) => ({
        throttlers: [{ name: 'default', ttl: 60_000, limit: 1 }],
        storage: new RedisThrottlerStorage(redis, config.redisKeyPrefix),
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [RateLimitGuard, ThrottlerModule],
})
export class RateLimitModule {}
