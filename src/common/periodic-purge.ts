import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../config/config';

/**
 * A retention purge run hourly (not under NODE_ENV=test, where tests call `purge()` directly). Subclasses say
 * what they delete; a failure is logged and retried at the next run.
 */
export abstract class PeriodicPurge implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;
  protected abstract readonly what: string;
  private timer: NodeJS.Timeout | null = null;

  protected constructor(protected readonly config: Config) {}

  protected abstract deleteExpired(): Promise<number>;

  onApplicationBootstrap(): void {
    if (this.config.nodeEnv === 'test') return;
    this.timer = setInterval(() => void this.purge(), 3_600_000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      const n = await this.deleteExpired();
      if (n > 0) this.logger.log(`purged ${n} ${this.what}`);
      return n;
    } catch (e) {
      this.logger.warn(`purge of ${this.what} failed: ${(e as Error).message}`);
      return 0;
    }
  }
}
