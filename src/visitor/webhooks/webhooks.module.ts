import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { Config } from '../../config/config';
import { CONFIG } from '../../config/config.module';
import { EventsService } from '../events/events.service';
import { MessagesModule } from '../messages/messages.module';
import { EventsRetention } from '../events/events-retention';
import { WebhooksRepository } from './webhooks.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { EndpointDisabledNotifier } from './endpoint-disabled.notifier';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryProcessor, DeliverySweeper } from './delivery/delivery.worker';
import { WEBHOOK_QUEUE, WebhookQueue } from './delivery/webhook-queue';

function connectionOf(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
    retryStrategy: (n: number) => Math.min(250 * n, 2000),
  };
}

/** The outbox and webhook delivery engine; processors and the sweeper run only where RUN_WORKER is on. */
@Module({})
export class WebhooksModule {
  static forRoot(config: Config): DynamicModule {
    const worker = config.runWorker ? [DeliveryProcessor, DeliverySweeper, EventsRetention] : [];
    return {
      module: WebhooksModule,
      global: true,
      imports: [
        MessagesModule,
        BullModule.forRootAsync({
          inject: [CONFIG],
          useFactory: (c: Config) => ({
            connection: connectionOf(c.redisUrl),
            prefix: `${c.redisKeyPrefix}:bull`,
          }),
        }),
        BullModule.registerQueue({ name: WEBHOOK_QUEUE }),
      ],
      providers: [
        WebhooksRepository,
        WebhookQueue,
        DeliveryService,
        EventsService,
        WebhookEndpointsService,
        EndpointDisabledNotifier,
        ...worker,
      ],
      exports: [
        EventsService,
        DeliveryService,
        WebhooksRepository,
        WebhookQueue,
        WebhookEndpointsService,
        ...worker,
      ],
    };
  }
}
