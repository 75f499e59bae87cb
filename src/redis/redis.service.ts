import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';

import Redis from 'ioredis';
import { Config, redactUrlPasswords } from '../config/config';
import { InjectConfig } from '../config/config.module';

/** How long a connection is given to be made, at start-up as on each attempt. */
const CONNECT_TIMEOUT_MS = 2000;
/** How long after a component's Redis failure the shared connection's state is trusted (see warnUnlessDown). */
const SETTLE_MS = 500;

/**
 * The shared Redis connection. Redis being down never stops the HTTP API: commands fail fast (no offline
 * queue), rate limits are counted per process, one warning is logged when the connection is lost (the only one
 * of the outage: other components report their Redis failures through `warnUnlessDown`), one line when it comes
 * back, and the client keeps reconnecting by itself.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis;
  private down = false;
  private everReady = false;
  /** Set when the application shuts down: the connection's end is then expected, not worth a warning. */
  private closing = false;

  constructor(@InjectConfig() private readonly config: Config) {
    this.client = new Redis(config.redisUrl, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Commands issued in the same tick (rate-limit counters of concurrent requests) go out in one write.
      enableAutoPipelining: true,
      retryStrategy: (attempt) => Math.min(250 * attempt, 2000),
    });
    this.client.on('ready', () => {
      if (this.down)
        this.logger.log(
          `Redis at ${this.safeUrl()} is reachable again: rate limits are shared again, queued work resumes`,
        );
      this.down = false;
      this.everReady = true;
    });
    this.client.on('error', (err: Error) => this.markDown(err.message));
    this.client.on('end', () => this.markDown('connection ended'));
  }

  private markDown(reason: string): void {
    if (this.down || this.closing) return;
    this.down = true;
    this.logger.warn(
      `Redis at ${this.safeUrl()} is unreachable (${reason}); the API keeps serving with rate limits counted per process, background work waits in PostgreSQL, reconnecting${this.everReady ? '' : ' (never connected yet)'}`,
    );
  }

  /**
   * A component's own Redis failure (a queue's or worker's connection): a warning only if the shared connection
   * is still up a moment later (Redis answers, yet refused something); while it is down the one warning above
   * covers it, and the failure is a debug line. The moment lets every connection notice a lost server first.
   */
  warnUnlessDown(logger: Logger, message: string): void {
    if (!this.isReady()) return logger.debug(message);
    setTimeout(() => {
      if (this.isReady() && !this.closing) logger.warn(message);
      else logger.debug(message);
    }, SETTLE_MS).unref();
  }

  private safeUrl(): string {
    return redactUrlPasswords(this.config.redisUrl);
  }

  isReady(): boolean {
    return this.client.status === 'ready';
  }

  /** Whether the connection is ready, waiting up to `ms` for one being made (start-up, reconnection). */
  whenReady(ms: number): Promise<boolean> {
    if (this.isReady()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ready: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(ready);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      timer.unref();
      this.client.once('ready', onReady);
    });
  }

  /**
   * Start-up waits (at most the connect timeout) for the first connection, so the first requests are counted in
   * Redis (shared) rather than per process while it is still being made; an unreachable Redis delays nothing
   * further.
   */
  async onModuleInit(): Promise<void> {
    await this.whenReady(CONNECT_TIMEOUT_MS);
  }

  async ping(timeoutMs = 1000): Promise<boolean> {
    if (!this.isReady()) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      });
      return (await Promise.race([this.client.ping(), timeout])) === 'PONG';
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.client.disconnect(false);
  }
}
