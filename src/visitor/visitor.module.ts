import { Module } from '@nestjs/common';
import { VisitorOpenApiController } from './openapi/visitor-openapi.controller';
import { OrganisationsController } from './organisations/organisations.controller';
import { AuditController } from './platform/audit.controller';
import { PeopleController } from './people/people.controller';
import { PeopleModule } from './people/people.module';
import { VisitTypesController } from './visit-types/visit-types.controller';
import { VisitTypesModule } from './visit-types/visit-types.module';
import { EventsController } from './events/events.controller';
import { VisitorsController, VisitsController } from './visits/visits.controller';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller';

/** The visitor-management API (/v1) routes. Services live in the platform and domain modules. */
@Module({
  imports: [PeopleModule, VisitTypesModule],
  controllers: [
    VisitorOpenApiController,
    OrganisationsController,
    AuditController,
    PeopleController,
    VisitTypesController,
    WebhookEndpointsController,
    EventsController,
    VisitsController,
    VisitorsController,
  ],
})
export class VisitorModule {}
