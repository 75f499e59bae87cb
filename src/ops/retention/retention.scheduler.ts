import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RequestLogService } from '../request-log/request-log.service';

const HOUR = 3_600_000;

/** Periodic retention purges, in processes that run the worker (RUN_WORKER=true). */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly requestLog: RequestLogService,
    @InjectConfig() private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorker || this.config.nodeEnv === 'test') return;
    const first = setTimeout(() => void this.runOnce(), 60_000);
    const every = setInterval(() => void this.runOnce(), HOUR);
    for (const t of [first, every]) t.unref();
    this.timers.push(first, every);
  }

  onModuleDestroy(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  async runOnce(): Promise<{ requestLog: number }> {
    try {
      const requestLog = await this.requestLog.purge();
      if (requestLog > 0)
        this.logger.log(
          `purged ${requestLog} request-log rows older than ${this.config.requestLog.retentionDays} days`,
        );
      return { requestLog };
    } catch (e) {
      this.logger.warn(`retention purge failed: ${(e as Error).message}`);
      return { requestLog: 0 };
    }
  }
}
