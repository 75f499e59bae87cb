import { Module } from '@nestjs/common';
import { VisitorOpenApiController } from './openapi/visitor-openapi.controller';
import { OrganisationsController } from './organisations/organisations.controller';
import { AuditController } from './platform/audit.controller';

/** The visitor-management API (/v1) routes. Services live in the platform and domain modules. */
@Module({ controllers: [VisitorOpenApiController, OrganisationsController, AuditController] })
export class VisitorModule {}
