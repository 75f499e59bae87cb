import { Module } from '@nestjs/common';
import { BookingsModule } from './bookings/bookings.module';
import { ConnectedAppsModule } from './connected-apps/connected-apps.module';
import { PassProcessor } from './visits/visits.jobs';
import { VisitsModule } from './visits/visits.module';
import { DeliveryProcessor } from './webhooks/webhooks.jobs';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The visitor area's job processors (`webhooks.deliver`, `visits.send-pass`), loaded only where RUN_WORKER is on;
 * the classes live in their domains' `<domain>.jobs.ts`, this module composes them (a worker refuses to start when a job some
 * loaded domain adds has no processor: `assertJobsHandled`). Periodic work (`@Periodic`: sweepers,
 * purges, no-shows, booking expiry) is declared by its domain module and scheduled by `PeriodicScheduler` only
 * where RUN_WORKER is on.
 */
@Module({
  // ConnectedAppsModule: its purge, for a worker process that serves no surface.
  imports: [WebhooksModule, VisitsModule, BookingsModule, ConnectedAppsModule],
  providers: [DeliveryProcessor, PassProcessor],
})
export class VisitorWorkerModule {}
