import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { AuditController } from './audit.controller';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditTrailService } from './audit-trail.service';

/** The audit trail (`visitor.audit_event`) and GET /v1/audit-events. */
@Module({
  imports: [PlatformModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditTrailService],
  exports: [AuditService, AuditTrailService],
})
export class AuditModule {}
