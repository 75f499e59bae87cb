import { Module } from '@nestjs/common';
import { OpenApiModule } from '../docs/docs.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AttendanceModule } from './attendance/attendance.module';
import { AuditModule } from './audit/audit.module';
import { ConnectedAppsModule } from './connected-apps/connected-apps.module';
import { BookingTypesModule } from './booking-types/booking-types.module';
import { BookingsModule } from './bookings/bookings.module';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { EventsModule } from './events/events.module';
import { EventStreamModule } from './event-stream/event-stream.module';
import { FilesModule } from './files/files.module';
import { FormsModule } from './forms/forms.module';
import { VisitorOpenApiController } from './openapi/visitor-openapi.controller';
import { WebhooksGuideController } from './webhooks/webhooks-guide.controller';
import { OrganisationsModule } from './organisations/organisations.module';
import { PeopleModule } from './people/people.module';
import { PlatformModule } from './platform/platform.module';
import { RollcallsModule } from './rollcalls/rollcalls.module';
import { TestHelpersModule } from './test-helpers/test-helpers.module';
import { VisitTypesModule } from './visit-types/visit-types.module';
import { VisitorsModule } from './visitors/visitors.module';
import { VisitsModule } from './visits/visits.module';
import { WatchlistModule } from './watchlist/watchlist.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** The visitor-management API (/v1): composes the domain modules, each of which owns its routes. */
@Module({
  imports: [
    OpenApiModule,
    PlatformModule,
    OrganisationsModule,
    ApiKeysModule,
    ConnectedAppsModule,
    AuditModule,
    FormsModule,
    PeopleModule,
    VisitTypesModule,
    EventsModule,
    WebhooksModule,
    VisitsModule,
    VisitorsModule,
    BookingTypesModule,
    BookingsModule,
    AttendanceModule,
    FilesModule,
    DeliveriesModule,
    WatchlistModule,
    RollcallsModule,
    TestHelpersModule,
    EventStreamModule,
  ],
  controllers: [VisitorOpenApiController, WebhooksGuideController],
})
export class VisitorModule {}
