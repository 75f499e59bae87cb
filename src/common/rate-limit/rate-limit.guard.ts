import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import type { RateLimitBucket } from '../http/request-context';
import { LocalWindowCounter } from './local-window';
import {
  RateLimitStoreUnavailable,
  RedisThrottlerStorage,
  ThrottlerStorageRecord,
} from './redis-throttler.storage';

/**
 * What a limit does while Redis is down: `open` lets requests through (the /v1 and public API allowances: an
 * outage of the counter store must not fail requests); `local` counts in this process's memory instead (limits
 * against guessing, such as console sign-in, which must never be unlimited).
 */
export type WhenStoreDown = 'open' | 'local';

/**
 * The one rate limiter of every surface. A surface's credential guard runs first and puts the allowance on
 * `req.ctx.rateLimit` (bucket, limit, window); this guard counts the request in Redis and sets
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every limited response, plus `Retry-After`
 * on a 429 (rendered `rate_limited` / `RATE_LIMITED` by the surface's error format). When Redis is down it
 * fails open (or counts locally, see WhenStoreDown) and says so once in the log.
 *
 * Use it after the credential guard: `@UseGuards(CredentialGuard, RateLimitGuard)`.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly log = new Logger('RateLimit');
  private readonly local = new LocalWindowCounter();
  private storeDown = false;

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const allowance = context.switchToHttp().getRequest<FastifyRequest>().ctx?.rateLimit;
    if (allowance) await this.enforce(context, allowance, 'open');
    return true;
  }

  /** Counts one request against `allowance`; throws `rate_limited` when it is used up. */
  async enforce(
    context: ExecutionContext,
    allowance: RateLimitBucket,
    whenStoreDown: WhenStoreDown,
  ): Promise<void> {
    return this.count(context.switchToHttp().getResponse<FastifyReply>(), allowance, whenStoreDown);
  }

  /**
   * `enforce` for a caller outside Nest's pipeline (a Fastify route hook), with the reply to set headers on.
   * Synchronous (no promise) when the request is counted from a lease this instance holds, as most requests of
   * a busy client are; a promise when it takes a trip to Redis.
   */
  count(reply: FastifyReply, allowance: RateLimitBucket, whenStoreDown: WhenStoreDown): Promise<void> | void {
    const leased =
      this.storageService instanceof RedisThrottlerStorage
        ? this.storageService.incrementLeased(allowance.bucket, allowance.limit)
        : null;
    if (leased) return this.apply(reply, allowance, leased);
    return this.countInStore(reply, allowance, whenStoreDown);
  }

  private async countInStore(
    reply: FastifyReply,
    allowance: RateLimitBucket,
    whenStoreDown: WhenStoreDown,
  ): Promise<void> {
    const { bucket, limit, windowMs } = allowance;
    let record: ThrottlerStorageRecord;
    try {
      record = await this.storageService.increment(bucket, windowMs, limit, windowMs, 'default');
      if (this.storeDown) this.log.log('Redis is back: rate limits are shared and enforced again');
      this.storeDown = false;
    } catch (e) {
      if (!(e instanceof RateLimitStoreUnavailable)) throw e;
      if (!this.storeDown)
        this.log.warn(
          `Redis is unavailable (${e.message}): API rate limits are not enforced; console sign-in limits are counted per process`,
        );
      this.storeDown = true;
      if (whenStoreDown === 'open') return;
      record = this.local.increment(bucket, windowMs, limit);
    }
    this.apply(reply, allowance, record);
  }

  /** The RateLimit-* headers of a counted request; `rate_limited` when the allowance is used up. */
  private apply(
    reply: FastifyReply,
    { limit, windowMs }: RateLimitBucket,
    record: ThrottlerStorageRecord,
  ): void {
    void reply.header('RateLimit-Limit', String(limit));
    void reply.header('RateLimit-Remaining', String(Math.max(0, limit - record.totalHits)));
    void reply.header('RateLimit-Reset', String(record.timeToExpire));
    if (record.isBlocked)
      throw new ApiError(
        'rate_limited',
        `The allowance of ${limit} requests per ${windowMs >= 120_000 ? `${windowMs / 60_000} minutes` : 'minute'} is used; retry after ${record.timeToBlockExpire} seconds.`,
        [],
        { 'Retry-After': String(record.timeToBlockExpire) },
      );
  }
}
