import { Module } from '@nestjs/common';
import { QueueModule } from '../../common/queue/queue.module';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { MessagesModule } from '../messages/messages.module';
import { PlatformModule } from '../platform/platform.module';
import { DeliveryService } from './delivery/delivery.service';
import { EndpointDisabledNotifier } from './endpoint-disabled.notifier';
import { EventRedeliveryController } from './event-redelivery.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFanOut } from './webhook-fan-out';
import { WEBHOOKS_DELIVER, WebhooksJobs } from './webhooks.jobs';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Webhook endpoints, deliveries and attempts. Subscribes to recorded events (`WebhookFanOut`); no domain imports
 * this module. Its job (`webhooks.deliver`) has its processor composed by `VisitorWorkerModule`; the sweeper
 * (`webhooks.sweep`, `@Periodic`) runs where RUN_WORKER is on.
 */
@Module({
  imports: [
    PlatformModule,
    AccountsModule,
    EventsModule,
    MessagesModule,
    QueueModule.forJobs(WEBHOOKS_DELIVER),
  ],
  controllers: [WebhookEndpointsController, EventRedeliveryController],
  providers: [
    WebhooksRepository,
    DeliveryService,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    EndpointDisabledNotifier,
    WebhookFanOut,
    WebhooksJobs,
  ],
  exports: [DeliveryService, WebhookEndpointsService, WebhookDeliveriesService],
})
export class WebhooksModule {}
