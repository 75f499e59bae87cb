import { createHash } from 'node:crypto';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { RedisService } from '../../redis/redis.service';

/** Redis said nothing usable: the caller decides (the guard fails open). */
export class RateLimitStoreUnavailable extends Error {}

// Fixed window: one counter per bucket and window, created with its expiry in the same atomic step.
const INCR_WITH_TTL = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;
const INCR_WITH_TTL_SHA = createHash('sha1').update(INCR_WITH_TTL).digest('hex');

export interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * @nestjs/throttler storage on Redis, so every instance shares the counters. Times are in seconds
 * (rounded up), as the RateLimit-Reset and Retry-After headers want them.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: RedisService,
    private readonly prefix: string,
  ) {}

  async increment(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (!this.redis.isReady()) throw new RateLimitStoreUnavailable('Redis is not connected');
    let reply: [number, number];
    const bucket = `${this.prefix}:rl:${key}`;
    try {
      // By hash (the script is not sent with every request); a server that does not know it yet gets it once.
      reply = (await this.redis.client
        .evalsha(INCR_WITH_TTL_SHA, 1, bucket, String(ttlMs))
        .catch((e: Error) =>
          /NOSCRIPT/.test(e.message)
            ? this.redis.client.eval(INCR_WITH_TTL, 1, bucket, String(ttlMs))
            : Promise.reject(e),
        )) as [number, number];
    } catch (e) {
      throw new RateLimitStoreUnavailable((e as Error).message);
    }
    const [hits, pttl] = reply;
    const seconds = Math.max(1, Math.ceil(pttl / 1000));
    return { totalHits: hits, timeToExpire: seconds, isBlocked: hits > limit, timeToBlockExpire: seconds };
  }
}
