import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../config/config';

/**
 * A job run on a timer in worker processes: retention purges (hourly), sweepers that re-enqueue what Redis lost,
 * the no-show job. Purges do not run under NODE_ENV=test (tests call `run()` directly); sweepers do. Runs never
 * overlap; a failure is logged and retried at the next run.
 */
export abstract class PeriodicTask implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;
  /** What `work()` counts, for the log line (`purged 12 <what>`); null logs nothing. */
  protected abstract readonly what: string | null;
  protected readonly intervalMs: number = 3_600_000;
  protected readonly runsInTests: boolean = false;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  protected constructor(protected readonly config: Config) {}

  /** Does one round; returns how many items it handled. */
  protected abstract work(): Promise<number>;

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    if (this.config.nodeEnv === 'test' && !this.runsInTests) return;
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async run(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const n = await this.work();
      if (n > 0 && this.what) this.logger.log(`${n} ${this.what}`);
      return n;
    } catch (e) {
      this.logger.warn(`${this.constructor.name} failed: ${(e as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}
