import type Redis from 'ioredis';

/**
 * Deletes every key under `prefix:` (a test's or a bench run's own `REDIS_KEY_PREFIX`); returns how many there were.
 * The service never calls it: its keys are shared by the fleet.
 */
export async function flushRedisPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) n += await redis.del(...keys);
  } while (cursor !== '0');
  return n;
}
