import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { RedisService } from '../redis/redis.service';

// KEYS: pairs of (the last period claimed, the lease of the run in progress), the task's key first and then the
// one it had before it was renamed, if any. A period is taken once, by the first process to ask, and only while
// no run holds a lease: a run that outlasts its period makes the fleet skip the next one instead of overlapping
// it. Every pair is checked and set together, so a process that knows only the former pair excludes this one.
const TAKE = `
for i = 1, #KEYS, 2 do
  local last = tonumber(redis.call('GET', KEYS[i]) or '-1')
  if last >= tonumber(ARGV[1]) then return 0 end
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then return 0 end
end
for i = 1, #KEYS, 2 do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[3])
  redis.call('SET', KEYS[i + 1], ARGV[2], 'PX', ARGV[4])
end
return 1`;
const RENEW = `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return 1`;
const RELEASE = `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1`;

/**
 * A lease outlives a dead holder by at most its length (the task's interval, within these bounds). It is renewed
 * every third of it while the run lasts, so only a process stalled for two thirds of it can lose it mid-run.
 */
const LEASE_MAX_MS = 30_000;
const LEASE_MIN_MS = 5_000;
/** A connection being made (start-up, reconnection) is waited for this long before Redis counts as unreachable. */
const READY_WAIT_MS = 2_000;
/** The last-claimed period is kept at least this long, so a process that ticks late never re-runs a period. */
const CLAIM_KEEP_MIN_MS = 60_000;

/**
 * Which process of the fleet (every process sharing the Redis key prefix) runs a periodic task's period:
 * `<prefix>:periodic:<task>` holds the last period claimed, `<prefix>:periodic:<task>:running` the lease of the
 * run in progress (a renamed task also claims its former key, see `@Periodic`'s `formerly`) (holder `host:pid:random`, renewed while it runs, released when it ends, expiring if its
 * process dies). Nothing has to be set up or restored: after a Redis flush the next period is claimed as usual.
 *
 * When Redis cannot be reached (not connected within READY_WAIT_MS, or the claim fails) the run goes ahead in
 * this process, so every worker runs it, as before there was a fleet: the tasks are purges and sweepers that are
 * safe to repeat, and the sweepers and the no-show job must keep working from PostgreSQL while Redis is down.
 */
export class PeriodClaim {
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** Each claim key followed by its lease key. */
  private readonly keys: string[];
  private readonly leaseKeys: string[];
  private readonly leaseMs: number;
  private readonly keepMs: number;
  private warned = false;

  constructor(
    private readonly redis: RedisService,
    claimKeys: string[],
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.leaseKeys = claimKeys.map((k) => `${k}:running`);
    this.keys = claimKeys.flatMap((k, i) => [k, this.leaseKeys[i]]);
    this.leaseMs = Math.min(LEASE_MAX_MS, Math.max(LEASE_MIN_MS, intervalMs));
    this.keepMs = Math.max(CLAIM_KEEP_MIN_MS, 2 * intervalMs);
  }

  /** Runs `fn` if this process takes `period` (or Redis is unreachable), holding the lease meanwhile. */
  async runIfClaimed(period: number, fn: () => Promise<unknown>): Promise<void> {
    const claim = await this.take(period);
    if (claim === 'other') return;
    // One debug line per round run, in the process that runs it: the fleet's record of who ran which period.
    this.logger.debug(`period ${period} ${claim === 'mine' ? 'claimed' : 'run locally (Redis unreachable)'}`);
    if (claim === 'local') {
      await fn();
      return;
    }
    const renew = setInterval(() => void this.onLease(RENEW, String(this.leaseMs)), this.leaseMs / 3);
    renew.unref();
    try {
      await fn();
    } finally {
      clearInterval(renew);
      await this.onLease(RELEASE); // if Redis is gone meanwhile, the lease expires by itself
    }
  }

  private async take(period: number): Promise<'mine' | 'other' | 'local'> {
    if (!(await this.redis.whenReady(READY_WAIT_MS))) return 'local';
    try {
      const args = [String(period), this.holder, String(this.keepMs), String(this.leaseMs)];
      const won = await this.redis.client.eval(TAKE, this.keys.length, ...this.keys, ...args);
      this.warned = false;
      return won === 1 ? 'mine' : 'other';
    } catch (e) {
      // Losing the connection is logged by RedisService; anything else (a refused EVAL) would go unnoticed.
      if (!this.warned && this.redis.isReady())
        this.logger.warn(`cannot claim a period in Redis (${(e as Error).message}); running in this process`);
      this.warned = true;
      return 'local';
    }
  }

  /** Renews or releases the leases this process still holds. */
  private onLease(lua: string, ...args: string[]): Promise<unknown> {
    return this.redis.client
      .eval(lua, this.leaseKeys.length, ...this.leaseKeys, this.holder, ...args)
      .catch(() => undefined);
  }
}
