import { Module } from '@nestjs/common';
import { RequestLogJobs } from './request-log/request-log.jobs';
import { RequestLogRepository } from './request-log/request-log.repository';
import { RequestLogService } from './request-log/request-log.service';

@Module({
  providers: [RequestLogRepository, RequestLogService, RequestLogJobs],
  exports: [RequestLogService],
})
export class OpsModule {}
