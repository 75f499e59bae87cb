import type { ThrottlerStorageRecord } from './redis-throttler.storage';

/**
 * A fixed-window counter in this process's memory: the fallback of every rate limit (RateLimitGuard) and of the
 * failed-password counts while Redis is down. Each instance counts on its own, so N instances allow N times the
 * limit; that is still a limit, where failing open would be none.
 */
export class LocalWindowCounter {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  increment(key: string, ttlMs: number, limit: number): ThrottlerStorageRecord {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now, ttlMs);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { hits: 0, resetAt: now + ttlMs };
      this.windows.set(key, w);
    }
    w.hits += 1;
    const seconds = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
    return {
      totalHits: w.hits,
      timeToExpire: seconds,
      isBlocked: w.hits > limit,
      timeToBlockExpire: seconds,
    };
  }

  /** The hits counted in `key`'s current window and the milliseconds left of it, without counting one. */
  peek(key: string): { hits: number; msLeft: number } {
    const now = this.now();
    const w = this.windows.get(key);
    return w && w.resetAt > now ? { hits: w.hits, msLeft: w.resetAt - now } : { hits: 0, msLeft: 0 };
  }

  /** Drops finished windows, at most once per window length, so the map holds only live buckets. */
  private sweep(now: number, ttlMs: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    this.nextSweep = now + ttlMs;
  }
}
