import Redis from 'ioredis';

/**
 * The Redis pub/sub channel on which a public key's revocation is announced (under the deployment's key prefix),
 * so every instance drops the key rows it has cached at once instead of trusting them for up to KEY_CACHE_MS.
 * Without Redis the cache's own expiry is the bound.
 */
export const revocationChannel = (prefix: string): string => `${prefix}:public-key-revoked`;

/**
 * Announces a revocation from a process that holds no shared Redis connection (the CLI): one short-lived
 * connection, one PUBLISH. Resolves false when Redis cannot be reached (instances then notice within KEY_CACHE_MS).
 */
export async function announceRevocation(redisUrl: string, prefix: string, keyId: string): Promise<boolean> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.publish(revocationChannel(prefix), keyId);
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
