import { Module } from '@nestjs/common';
import { BookingsModule } from './bookings/bookings.module';
import { ConnectedAppsModule } from './connected-apps/connected-apps.module';
import { PassProcessor } from './visits/visits.jobs';
import { VisitsModule } from './visits/visits.module';
import { DeliveryProcessor } from './webhooks/delivery/delivery.worker';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The visitor area's BullMQ processors (webhook deliveries, passes), loaded only where RUN_WORKER is on. The
 * classes live in their domains' folders; this module composes them. Periodic work (sweepers, purges, no-shows, booking expiry)
 * is declared by its domain module and scheduled by `PeriodicTask` only where RUN_WORKER is on.
 */
@Module({
  // ConnectedAppsModule: its OAuthPurge, for a worker process that serves no surface.
  imports: [WebhooksModule, VisitsModule, BookingsModule, ConnectedAppsModule],
  providers: [DeliveryProcessor, PassProcessor],
})
export class VisitorWorkerModule {}
