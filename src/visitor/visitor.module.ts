import { Module } from '@nestjs/common';
import { VisitorOpenApiController } from './openapi/visitor-openapi.controller';
import { OrganisationsController } from './organisations/organisations.controller';
import { AuditController } from './platform/audit.controller';
import { PeopleController } from './people/people.controller';
import { PeopleModule } from './people/people.module';

/** The visitor-management API (/v1) routes. Services live in the platform and domain modules. */
@Module({
  imports: [PeopleModule],
  controllers: [VisitorOpenApiController, OrganisationsController, AuditController, PeopleController],
})
export class VisitorModule {}
