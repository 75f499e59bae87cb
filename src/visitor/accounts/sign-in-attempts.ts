import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { ApiError } from '../../common/errors/api-error';
import { LocalWindowCounter } from '../../common/rate-limit/local-window';
import { RedisService } from '../../redis/redis.service';
import { MessagesService } from '../messages/messages.service';
import { AccountsRepository } from './accounts.repository';

/** Wrong passwords for one e-mail address in WINDOW_MS before it is locked against further guessing. */
export const EMAIL_FAILURES = 10;
/** While an address is locked, tries from clients that have not failed for it (one each), per window. */
export const LOCKED_TRIES = 50;
const WINDOW_MS = 15 * 60_000;

interface Count {
  n: number;
  ttlMs: number;
}

/**
 * Failed console sign-ins, counted per e-mail address and per e-mail address and client (IP address), 15-minute
 * windows, shared through Redis (in this process's memory while Redis is down: guessing is never unlimited).
 *
 * After EMAIL_FAILURES wrong passwords an address is locked for the rest of the window: a client that has failed
 * for it is refused (429) without its password being checked; a client that has not may still try, so the
 * owner signing in with the correct password is not locked out by someone else's guesses. Each such try that
 * fails makes that client a failing one (refused from then on) and is answered 429 like a refusal; at most
 * LOCKED_TRIES of them are admitted per window (a guesser with many addresses gets that many more guesses,
 * then the address is locked for everyone until the window ends). When an address is first locked in a window,
 * the account's owner is told by e-mail (the test outbox outside production).
 */
@Injectable()
export class SignInAttempts {
  private readonly logger = new Logger('SignIn');
  private readonly local = new LocalWindowCounter();
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisService,
    private readonly accounts: AccountsRepository,
    private readonly messages: MessagesService,
    @InjectConfig() private readonly config: Config,
  ) {
    this.prefix = `${config.redisKeyPrefix}:signin`;
  }

  /** Refuses (rate_limited) a sign-in for `email` from `client` that the lock does not admit. */
  async admit(email: string, client: string): Promise<void> {
    const [byEmail, byClient] = await this.read([this.emailKey(email), this.clientKey(email, client)]);
    if (byEmail.n < EMAIL_FAILURES) return;
    if (byClient.n > 0) throw this.locked(byEmail);
    const tries = await this.increment(`${this.emailKey(email)}:locked-tries`);
    if (tries.n > LOCKED_TRIES) throw this.locked(byEmail);
  }

  /** Counts a wrong password; returns the error to answer with (rate_limited once the address is locked). */
  async failed(email: string, client: string, wrong: ApiError): Promise<ApiError> {
    const byEmail = await this.increment(this.emailKey(email));
    await this.increment(this.clientKey(email, client));
    if (byEmail.n < EMAIL_FAILURES) return wrong;
    if ((await this.increment(`${this.emailKey(email)}:notified`)).n === 1)
      void this.tellOwner(email).catch((e: Error) =>
        this.logger.warn(`could not tell the owner of ${email} about failed sign-ins: ${e.message}`),
      );
    return byEmail.n > EMAIL_FAILURES ? this.locked(byEmail) : wrong;
  }

  private locked(byEmail: Count): ApiError {
    const seconds = Math.max(1, Math.ceil(byEmail.ttlMs / 1000));
    return new ApiError(
      'rate_limited',
      `Too many wrong passwords for this e-mail address; retry after ${seconds} seconds.`,
      [],
      { 'Retry-After': String(seconds) },
    );
  }

  private async tellOwner(email: string): Promise<void> {
    const account = await this.accounts.findByEmail(email);
    if (!account) return;
    const tenant = {
      organisationId: account.organisation_id,
      livemode: this.config.nodeEnv === 'production',
    };
    await this.messages.send(tenant, ['email'], {
      to: { email: account.email },
      subject: 'Someone is trying to sign in to your Gatehouse console account',
      body:
        `There have been ${EMAIL_FAILURES} or more sign-ins with a wrong password for ${account.email} in the last ` +
        `15 minutes. Sign-ins from where those came from are refused for the next 15 minutes; you can still sign ` +
        `in from your usual device. If this was not you, consider changing your password.`,
      relatedId: account.id,
    });
  }

  private emailKey(email: string): string {
    return `${this.prefix}:email:${email.toLowerCase()}`;
  }

  private clientKey(email: string, client: string): string {
    return `${this.prefix}:client:${email.toLowerCase()}:${client}`;
  }

  private async read(keys: string[]): Promise<Count[]> {
    if (this.redis.isReady())
      try {
        const m = this.redis.client.multi();
        for (const k of keys) m.get(k).pttl(k);
        const r = ((await m.exec()) ?? []).map(([, v]) => Number(v ?? 0));
        return keys.map((_, i) => ({ n: r[2 * i], ttlMs: Math.max(0, r[2 * i + 1]) }));
      } catch {
        // counted in memory below
      }
    return keys.map((k) => {
      const { hits, msLeft } = this.local.peek(k);
      return { n: hits, ttlMs: msLeft };
    });
  }

  private async increment(key: string): Promise<Count> {
    if (this.redis.isReady())
      try {
        const [[, n], [, ttl]] = (await this.redis.client
          .multi()
          .incr(key)
          .pexpire(key, WINDOW_MS, 'NX')
          .pttl(key)
          .exec()) as [unknown, number][];
        return { n, ttlMs: ttl };
      } catch {
        // counted in memory below
      }
    this.local.increment(key, WINDOW_MS, Infinity);
    const { hits, msLeft } = this.local.peek(key);
    return { n: hits, ttlMs: msLeft };
  }
}
