import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { assertWellFormedQuery } from '../../common/errors/query-string';
import { RateLimitGuard } from '../../common/rate-limit/rate-limit.guard';
import { PublicKeysService } from './public-keys.service';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';

/**
 * The public surface's credential step, for every /public/v1 route: an optional `x-api-key` (unknown or revoked
 * → UNAUTHORIZED, never silently downgraded), then the rate limit — 30 a minute per client IP without a key,
 * 600 a minute per key (PUBLIC_KEYLESS_RATE_PER_MINUTE, PUBLIC_KEYED_RATE_PER_MINUTE) — counted in Redis so
 * instances share it. Keyed requests are counted for attribution.
 */
@Injectable()
export class PublicAuthGuard implements CanActivate {
  constructor(
    private readonly keys: PublicKeysService,
    private readonly rateLimit: RateLimitGuard,
    @InjectConfig() private readonly config: Config,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    if (req.ctx?.surface !== 'public') return true;
    assertWellFormedQuery(req.url);
    const raw = req.headers['x-api-key'];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined) {
      const keyId = await this.keys.resolve(value.trim());
      if (keyId === null)
        throw new ApiError(
          'unauthorized',
          'The x-api-key header holds an unknown key. Omit it to use the keyless tier.',
        );
      if (keyId === 'revoked')
        throw new ApiError(
          'unauthorized',
          'The x-api-key header holds a revoked key. Omit it to use the keyless tier.',
        );
      req.ctx.credentialId = keyId;
      req.ctx.rateLimit = {
        bucket: `pub:key:${keyId}`,
        limit: this.config.publicRates.keyedPerMinute,
        windowMs: 60_000,
      };
      this.keys.countUse(keyId);
    } else {
      req.ctx.rateLimit = {
        bucket: `pub:ip:${req.ip}`,
        limit: this.config.publicRates.keylessPerMinute,
        windowMs: 60_000,
      };
    }
    return this.rateLimit.canActivate(context);
  }
}
