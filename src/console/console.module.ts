import { Module } from '@nestjs/common';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { OAuthModule } from '../oauth/oauth.module';
import { OpsModule } from '../ops/ops.module';
import { AccountsModule } from '../visitor/accounts/accounts.module';
import { AuditModule } from '../visitor/audit/audit.module';
import { AttendanceModule } from '../visitor/attendance/attendance.module';
import { BookingTypesModule } from '../visitor/booking-types/booking-types.module';
import { BookingsModule } from '../visitor/bookings/bookings.module';
import { EventsModule } from '../visitor/events/events.module';
import { OrganisationsModule } from '../visitor/organisations/organisations.module';
import { PeopleModule } from '../visitor/people/people.module';
import { ApiKeysModule } from '../visitor/api-keys/api-keys.module';
import { FormsModule } from '../visitor/forms/forms.module';
import { MessagesModule } from '../visitor/messages/messages.module';
import { PlatformModule } from '../visitor/platform/platform.module';
import { VisitTypesModule } from '../visitor/visit-types/visit-types.module';
import { VisitsModule } from '../visitor/visits/visits.module';
import { WebhooksModule } from '../visitor/webhooks/webhooks.module';
import { ConsoleWebhooksPageController } from './webhooks/webhooks.page';
import { ConsoleAccountPageController } from './account/account.page';
import { ConsoleRequestsPageController } from './requests/requests.page';
import { ConsoleApiKeysController } from './auth/api-keys.controller';
import { ConsoleSessionGuard } from './auth/console-auth';
import { SessionController } from './auth/session.controller';
import { ConsoleSignInPageController } from './auth/sign-in.page';
import { ConsoleAppsPageController } from './connected-apps/connected-apps.page';
import {
  ConsoleConnectedAppsController,
  ConsoleOAuthAppsController,
} from './connected-apps/connected-apps.controller';
import { ConsoleAttendanceController } from './attendance/attendance.controller';
import { ConsoleAttendancePageController } from './attendance/attendance.page';
import { ConsoleBookingTypesController } from './bookings/booking-types.controller';
import { ConsoleBookingTypesPageController } from './bookings/booking-types.page';
import { ConsoleBookingsPageController } from './bookings/bookings.page';
import { ConsoleFrontDoorController } from './front-door/front-door.controller';
import { ConsoleFrameController } from './frame/console-frame.controller';
import { ConsoleFrameInterceptor } from './frame/console-page';
import { ConsoleOverviewPageController } from './frame/overview.page';
import { ConsoleKeysPageController } from './keys/keys.page';
import { ConsoleCopyScriptController } from './keys/copy-button';
import { ConsoleInvitationPageController, ConsoleTeamPageController } from './team/team.page';
import { ConsoleAuditPageController } from './audit/audit.page';
import { OperatorGuard } from './operator.guard';
import { ConsoleSandboxPageController } from './sandbox/sandbox.page';
import { TestHelpersModule } from '../visitor/test-helpers/test-helpers.module';
import { ConsoleVisitsPageController } from './visits/visits.page';
import { ConsoleOutboxPageController } from './outbox/outbox.page';
import { ConsoleVisitTypesPageController } from './visit-types/visit-types.page';
import { ConsoleDeskPageController } from './desk/desk.page';
import { ConsoleDeskRollcallsPageController } from './desk/desk-rollcalls.page';
import { ConsoleDeskWatchlistPageController } from './desk/desk-watchlist.page';
import { ConsolePrintStylesController } from './desk/print-css';
import { DeliveriesModule } from '../visitor/deliveries/deliveries.module';
import { RollcallsModule } from '../visitor/rollcalls/rollcalls.module';
import { WatchlistModule } from '../visitor/watchlist/watchlist.module';
import { SupportController } from './support/support.controller';
import {
  ConsoleWebhookDeliveriesController,
  SupportDeliveriesController,
} from './webhooks/webhook-deliveries.controller';

/**
 * The organisation console (/console): the pages' frame and overview (src/console/frame), sessions, API keys, the
 * delivery log, front-door settings, support.
 */
@Module({
  imports: [
    OpsModule,
    RateLimitModule,
    PlatformModule,
    AccountsModule,
    ApiKeysModule,
    FormsModule,
    MessagesModule,
    VisitTypesModule,
    VisitsModule,
    WebhooksModule,
    OAuthModule,
    BookingTypesModule,
    AttendanceModule,
    PeopleModule,
    OrganisationsModule,
    BookingsModule,
    EventsModule,
    AuditModule,
    DeliveriesModule,
    RollcallsModule,
    WatchlistModule,
    TestHelpersModule,
  ],
  controllers: [
    SupportController,
    SessionController,
    ConsoleApiKeysController,
    ConsoleWebhookDeliveriesController,
    SupportDeliveriesController,
    ConsoleFrontDoorController,
    ConsoleConnectedAppsController,
    ConsoleOAuthAppsController,
    ConsoleSignInPageController,
    ConsoleAppsPageController,
    ConsoleBookingTypesController,
    ConsoleAttendanceController,
    ConsoleFrameController,
    ConsoleOverviewPageController,
    ConsoleWebhooksPageController,
    ConsoleRequestsPageController,
    ConsoleKeysPageController,
    ConsoleCopyScriptController,
    ConsoleTeamPageController,
    ConsoleInvitationPageController,
    ConsoleAuditPageController,
    ConsoleVisitsPageController,
    ConsoleOutboxPageController,
    ConsoleVisitTypesPageController,
    ConsoleBookingsPageController,
    ConsoleBookingTypesPageController,
    ConsoleDeskPageController,
    ConsoleDeskRollcallsPageController,
    ConsoleDeskWatchlistPageController,
    ConsolePrintStylesController,
    ConsoleAttendancePageController,
    ConsoleSandboxPageController,
    ConsoleAccountPageController,
  ],
  providers: [OperatorGuard, ConsoleSessionGuard, ConsoleFrameInterceptor],
})
export class ConsoleModule {}
