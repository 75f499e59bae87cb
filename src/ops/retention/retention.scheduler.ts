import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { PeriodicTask } from '../../common/periodic-task';
import { RequestLogService } from '../request-log/request-log.service';

/** Purges request-log rows older than REQUEST_LOG_RETENTION_DAYS, hourly, once per fleet of workers. */
@Injectable()
export class RetentionScheduler extends PeriodicTask {
  protected readonly logger = new Logger('Retention');
  protected readonly what = `request-log rows older than ${this.config.requestLog.retentionDays} days purged`;

  constructor(
    private readonly requestLog: RequestLogService,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected work(): Promise<number> {
    return this.requestLog.purge();
  }

  /** One purge now, in this process, with its count by table. */
  async runOnce(): Promise<{ requestLog: number }> {
    return { requestLog: await this.run() };
  }
}
