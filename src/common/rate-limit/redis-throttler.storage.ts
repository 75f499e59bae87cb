import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { RedisService } from '../../redis/redis.service';

/** Redis said nothing usable: the caller counts in its process instead (see RateLimitGuard). */
export class RateLimitStoreUnavailable extends Error {}

// Fixed window: one counter per bucket and window, created with its expiry in the same atomic step. ARGV[2]
// units are taken at once (a lease, see RedisThrottlerStorage).
const INCR_WITH_TTL = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[2])
if hits == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;
const INCR_WITH_TTL_SHA = createHash('sha1').update(INCR_WITH_TTL).digest('hex');

/** At most this share of a limit is leased at once, so other instances lose less than 1 % of it. */
const LEASE_SHARE = 100;
/** A lease is at most 1/32 of what is left, so leases shrink to single units as the allowance runs out. */
const LEASE_OF_REMAINING = 32;
const LEASE_MAX = 1000;

/** Units this instance took from the shared counter and has not used yet, for one bucket's current window. */
interface Lease {
  resetAt: number;
  /** Units taken and not used yet. */
  left: number;
  /** The shared counter after this instance's last trip (capped at the limit). */
  counted: number;
}

export interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * @nestjs/throttler storage on Redis, so every instance shares the counters. Times are in seconds
 * (rounded up), as the RateLimit-Reset and Retry-After headers want them.
 *
 * Leases: for a large allowance an instance takes several units per round trip and spends them locally — at
 * most 1 % of the limit and 1/32 of what is left (so near the end of an allowance every request is counted in
 * Redis again, and small limits such as 30 or 100 a minute are always counted one by one). The shared counter
 * never admits more than the limit; another instance may be refused while this one still holds unspent units,
 * so a client spread over N instances can lose at most (N − 1) % of its allowance in a window. Within one
 * instance `RateLimit-Remaining` still counts down one by one.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly leases = new Map<string, Lease>();
  private nextSweep = 0;
  private readonly log = new Logger('RateLimit');
  private warned = false;

  constructor(
    private readonly redis: RedisService,
    private readonly prefix: string,
  ) {}

  /** Whether counting in Redis can be tried now (false while the connection is down: count locally). */
  available(): boolean {
    return this.redis.isReady();
  }

  /**
   * The request counted from a unit this instance already holds for the bucket, without a trip to Redis; null
   * when it holds none (then `increment`).
   */
  incrementLeased(key: string, limit: number): ThrottlerStorageRecord | null {
    const lease = this.leases.get(key);
    if (!lease || lease.left <= 0) return null;
    const now = Date.now();
    return lease.resetAt > now ? this.spend(lease, now, limit) : null;
  }

  async increment(key: string, ttlMs: number, limit: number): Promise<ThrottlerStorageRecord> {
    const leased = this.incrementLeased(key, limit);
    if (leased) return leased;
    const now = Date.now();
    const lease = this.leases.get(key);
    if (!this.redis.isReady()) throw new RateLimitStoreUnavailable('Redis is not connected');
    // The first trip of a window takes one unit and learns how much is left; later ones may take a lease.
    const take =
      lease && lease.resetAt > now
        ? Math.max(
            1,
            Math.min(
              Math.floor(limit / LEASE_SHARE),
              Math.floor((limit - lease.counted) / LEASE_OF_REMAINING),
              LEASE_MAX,
            ),
          )
        : 1;
    const [hits, pttl] = await this.take(key, ttlMs, take);
    this.warned = false;
    const granted = Math.min(take, limit - (hits - take));
    // Requests that missed the lease together each made a trip: their units join one lease (the same window:
    // this trip did not start the counter) instead of the last trip's lease replacing the others'.
    const current = this.leases.get(key);
    const joined = current && current.resetAt > now && hits > take ? current : null;
    if (granted <= 0) {
      // Refused by Redis, but units another trip brought back may still be unspent here.
      if (joined && joined.left > 0) return this.spend(joined, now, limit);
      this.leases.delete(key);
      return this.record(hits, pttl, limit);
    }
    // Local state only where a later trip could take more than one unit (limits of 200 and more).
    if (Math.floor(limit / LEASE_SHARE) <= 1) return this.record(Math.min(hits, limit), pttl, limit);
    let into = joined;
    if (!into) {
      if (now >= this.nextSweep) this.sweep(now, ttlMs);
      into = { resetAt: now + pttl, left: 0, counted: 0 };
      this.leases.set(key, into);
    }
    into.left += granted;
    into.counted = Math.max(into.counted, Math.min(hits, limit));
    return this.spend(into, now, limit);
  }

  /** Uses one unit of a lease for this request. */
  private spend(lease: Lease, now: number, limit: number): ThrottlerStorageRecord {
    lease.left -= 1;
    return this.record(lease.counted - lease.left, lease.resetAt - now, limit);
  }

  private record(hits: number, pttl: number, limit: number): ThrottlerStorageRecord {
    const seconds = Math.max(1, Math.ceil(pttl / 1000));
    return { totalHits: hits, timeToExpire: seconds, isBlocked: hits > limit, timeToBlockExpire: seconds };
  }

  private async take(key: string, ttlMs: number, units: number): Promise<[number, number]> {
    const bucket = `${this.prefix}:rl:${key}`;
    try {
      // By hash (the script is not sent with every request); a server that does not know it yet gets it once.
      return (await this.redis.client
        .evalsha(INCR_WITH_TTL_SHA, 1, bucket, String(ttlMs), String(units))
        .catch((e: Error) =>
          /NOSCRIPT/.test(e.message)
            ? this.redis.client.eval(INCR_WITH_TTL, 1, bucket, String(ttlMs), String(units))
            : Promise.reject(e),
        )) as [number, number];
    } catch (e) {
      // Losing the connection is logged once by RedisService; a refusal while Redis answers would go unnoticed.
      if (!this.warned && this.redis.isReady()) {
        this.log.warn(`Redis refused a rate-limit count (${(e as Error).message}); counting in this process`);
        this.warned = true;
      }
      throw new RateLimitStoreUnavailable((e as Error).message);
    }
  }

  /** Drops leases of finished windows, at most once per window length. */
  private sweep(now: number, ttlMs: number): void {
    for (const [k, l] of this.leases) if (l.resetAt <= now) this.leases.delete(k);
    this.nextSweep = now + ttlMs;
  }
}
