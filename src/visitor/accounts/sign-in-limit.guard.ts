import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { RateLimitGuard } from '../../common/rate-limit/rate-limit.guard';
import { SignInAttempts } from './sign-in-attempts';

/**
 * Sign-in is limited against guessing: 20 attempts a minute per client address, and 10 wrong passwords per
 * 15 minutes per e-mail address lock the address for the clients that sent them (SignInAttempts: a client that
 * has not been failing may still sign in), shared by all instances through Redis, on top of argon2id's cost.
 * While Redis is down the limits are counted in each process's memory instead of failing open: guessing is
 * never unlimited. Every sign-in form uses it: `POST /console/session`, the console sign-in page and the OAuth
 * authorization page.
 */
@Injectable()
export class SignInLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimitGuard,
    private readonly attempts: SignInAttempts,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    await this.limiter.enforce(context, { bucket: `signin-ip:${req.ip}`, limit: 20, windowMs: 60_000 });
    const email = (req.body as { email?: unknown } | undefined)?.email;
    if (typeof email === 'string') await this.attempts.admit(email, req.ip);
    return true;
  }
}
