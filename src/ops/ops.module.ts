import { Module } from '@nestjs/common';
import { RequestLogRepository } from './request-log/request-log.repository';
import { RequestLogService } from './request-log/request-log.service';
import { RetentionScheduler } from './retention/retention.scheduler';

@Module({
  providers: [RequestLogRepository, RequestLogService, RetentionScheduler],
  exports: [RequestLogService, RetentionScheduler],
})
export class OpsModule {}
