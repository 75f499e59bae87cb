import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';

/** How long a connection is given to be made, at start-up as on each attempt. */
const CONNECT_TIMEOUT_MS = 2000;
import Redis from 'ioredis';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';

/**
 * The shared Redis connection. Redis being down never stops the HTTP API: commands fail fast (no offline
 * queue), one warning is logged when the connection is lost, one line when it comes back, and the client
 * keeps reconnecting by itself.
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
      if (this.down) this.logger.log(`Redis at ${this.safeUrl()} is reachable again`);
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
      `Redis at ${this.safeUrl()} is unreachable (${reason}); the API keeps serving, background work waits in PostgreSQL, reconnecting${this.everReady ? '' : ' (never connected yet)'}`,
    );
  }

  private safeUrl(): string {
    const u = new URL(this.config.redisUrl);
    if (u.password) u.password = '***';
    return u.toString();
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
   * Redis rather than passed uncounted while it is still being made; an unreachable Redis delays nothing further.
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
