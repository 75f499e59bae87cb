import { Injectable } from '@nestjs/common';
import { Periodic } from '../../common/periodic';
import { RequestLogService } from './request-log.service';

/** The request log's periodic work. */
@Injectable()
export class RequestLogJobs {
  constructor(private readonly requestLog: RequestLogService) {}

  /** Purges request-log rows older than REQUEST_LOG_RETENTION_DAYS, hourly, once per fleet of workers. */
  @Periodic({
    name: 'request-log.purge',
    every: 'hour',
    what: (c) => `request-log rows older than ${c.requestLog.retentionDays} days purged`,
    formerly: 'RetentionScheduler',
  })
  purge(): Promise<number> {
    return this.requestLog.purge();
  }
}
