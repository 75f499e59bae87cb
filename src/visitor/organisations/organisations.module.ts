import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { PlatformModule } from '../platform/platform.module';
import { OrganisationsController } from './organisations.controller';
import { OrganisationsRepository } from './organisations.repository';
import { OrganisationsService } from './organisations.service';

/** Organisations and their sites; GET /v1/organisation and /v1/sites. */
@Module({
  imports: [PlatformModule, AuditModule],
  controllers: [OrganisationsController],
  providers: [OrganisationsRepository, OrganisationsService],
  exports: [OrganisationsService],
})
export class OrganisationsModule {}
