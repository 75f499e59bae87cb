import { ExecutionContext, Injectable } from '@nestjs/common';
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
 * The one rate limiter of every surface. A surface's credential guard runs first and puts the allowance on
 * `req.ctx.rateLimit` (bucket, limit, window); this guard counts the request in Redis and sets
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every limited response, plus `Retry-After`
 * on a 429 (rendered `rate_limited` / `RATE_LIMITED` by the surface's error format).
 *
 * While Redis is unreachable every allowance is counted in this process's memory instead (`LocalWindowCounter`):
 * a limit then holds per process (N processes admit up to N times it), never none. The outage itself is logged
 * once, by RedisService.
 *
 * Use it after the credential guard: `@UseGuards(CredentialGuard, RateLimitGuard)`.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly local = new LocalWindowCounter();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const allowance = context.switchToHttp().getRequest<FastifyRequest>().ctx?.rateLimit;
    if (allowance) await this.enforce(context, allowance);
    return true;
  }

  /** Counts one request against `allowance`; throws `rate_limited` when it is used up. */
  async enforce(context: ExecutionContext, allowance: RateLimitBucket): Promise<void> {
    return this.count(context.switchToHttp().getResponse<FastifyReply>(), allowance);
  }

  /**
   * `enforce` for a caller outside Nest's pipeline (a Fastify route hook), with the reply to set headers on.
   * Synchronous (no promise) when the request is counted from a lease this instance holds, as most requests of
   * a busy client are, or in this process while Redis is unreachable; a promise when it takes a trip to Redis.
   */
  count(reply: FastifyReply, allowance: RateLimitBucket): Promise<void> | void {
    const store = this.storageService instanceof RedisThrottlerStorage ? this.storageService : null;
    const leased = store?.incrementLeased(allowance.bucket, allowance.limit);
    if (leased) return this.apply(reply, allowance, leased);
    if (store && !store.available()) return this.countLocally(reply, allowance);
    return this.countInStore(reply, allowance);
  }

  private async countInStore(reply: FastifyReply, allowance: RateLimitBucket): Promise<void> {
    const { bucket, limit, windowMs } = allowance;
    let record: ThrottlerStorageRecord;
    try {
      record = await this.storageService.increment(bucket, windowMs, limit, windowMs, 'default');
    } catch (e) {
      if (!(e instanceof RateLimitStoreUnavailable)) throw e;
      return this.countLocally(reply, allowance);
    }
    this.apply(reply, allowance, record);
  }

  private countLocally(reply: FastifyReply, allowance: RateLimitBucket): void {
    this.apply(reply, allowance, this.local.increment(allowance.bucket, allowance.windowMs, allowance.limit));
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
