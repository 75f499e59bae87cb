import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import { RateLimitStoreUnavailable } from './redis-throttler.storage';

/**
 * The one rate limiter of every surface. A surface's credential guard runs first and puts the allowance on
 * `req.ctx.rateLimit` (bucket, limit, window); this guard counts the request in Redis and sets
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` on every limited response, plus `Retry-After`
 * on a 429 (rendered `rate_limited` / `RATE_LIMITED` by the surface's error format). When Redis is down it
 * fails open and says so once in the log.
 *
 * Use it after the credential guard: `@UseGuards(CredentialGuard, RateLimitGuard)`.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly log = new Logger('RateLimit');
  private failingOpen = false;
  protected override headerPrefix = 'RateLimit';

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const allowance = req.ctx?.rateLimit;
    if (!allowance) return true;
    return this.handleRequest({
      context,
      limit: allowance.limit,
      ttl: allowance.windowMs,
      blockDuration: allowance.windowMs,
      throttler: { name: 'default', limit: allowance.limit, ttl: allowance.windowMs },
      getTracker: async () => allowance.bucket,
      generateKey: (_ctx, tracker) => tracker,
    });
  }

  protected override async handleRequest(p: ThrottlerRequest): Promise<boolean> {
    const reply = p.context.switchToHttp().getResponse<FastifyReply>();
    const key = p.generateKey(
      p.context,
      await p.getTracker(p.context.switchToHttp().getRequest(), p.context),
      'default',
    );
    let record;
    try {
      record = await this.storageService.increment(key, p.ttl, p.limit, p.blockDuration, 'default');
    } catch (e) {
      if (!(e instanceof RateLimitStoreUnavailable)) throw e;
      if (!this.failingOpen)
        this.log.warn(`rate limits are not enforced while Redis is unavailable (${e.message})`);
      this.failingOpen = true;
      return true;
    }
    if (this.failingOpen) this.log.log('rate limits are enforced again');
    this.failingOpen = false;
    void reply.header('RateLimit-Limit', String(p.limit));
    void reply.header('RateLimit-Remaining', String(Math.max(0, p.limit - record.totalHits)));
    void reply.header('RateLimit-Reset', String(record.timeToExpire));
    if (record.isBlocked) {
      throw new ApiError(
        'rate_limited',
        `The allowance of ${p.limit} requests per minute is used; retry after ${record.timeToBlockExpire} seconds.`,
        [],
        {
          'Retry-After': String(record.timeToBlockExpire),
        },
      );
    }
    return true;
  }
}
