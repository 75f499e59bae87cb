import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueModule } from '../../common/queue/queue.module';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { MessagesModule } from '../messages/messages.module';
import { PlatformModule } from '../platform/platform.module';
import { DeliveryService } from './delivery/delivery.service';
import { DeliverySweeper } from './delivery/delivery.worker';
import { WEBHOOK_QUEUE, WebhookQueue } from './delivery/webhook-queue';
import { EndpointDisabledNotifier } from './endpoint-disabled.notifier';
import { EventRedeliveryController } from './event-redelivery.controller';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFanOut } from './webhook-fan-out';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Webhook endpoints, deliveries and attempts. Subscribes to recorded events (`WebhookFanOut`); no domain imports
 * this module. Its BullMQ processor is composed by `VisitorWorkerModule`; the sweeper runs where
 * RUN_WORKER is on (PeriodicTask).
 */
@Module({
  imports: [
    PlatformModule,
    AccountsModule,
    EventsModule,
    MessagesModule,
    QueueModule,
    BullModule.registerQueue({ name: WEBHOOK_QUEUE }),
  ],
  controllers: [WebhookEndpointsController, EventRedeliveryController],
  providers: [
    WebhooksRepository,
    WebhookQueue,
    DeliveryService,
    WebhookEndpointsService,
    WebhookDeliveriesService,
    EndpointDisabledNotifier,
    WebhookFanOut,
    DeliverySweeper,
  ],
  exports: [WebhookQueue, DeliveryService, WebhookEndpointsService, WebhookDeliveriesService],
})
export class WebhooksModule {}
