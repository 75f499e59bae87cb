import { Injectable, OnModuleInit } from '@nestjs/common';
import { Transactions } from '../../database/unit-of-work';
import { AccountsService } from '../accounts/accounts.service';
import { EventsService } from '../events/events.service';
import { MessagesService } from '../messages/messages.service';
import { DeliveryService, EndpointDisabledListener } from './delivery/delivery.service';
import { toWebhookEndpointResponse, WebhookEndpointResponse } from './dto/webhook-endpoint.response';
import { WebhooksRepository } from './webhooks.repository';

// webhook_endpoint.disabled has no registered sample: a test send carries the endpoint it is sent to.
declare module '../events/event-types' {
  interface EventObjects {
    'webhook_endpoint.disabled': WebhookEndpointResponse;
  }
}

/**
 * When an endpoint is disabled after 5 days of failures: the organisation's Owners and Admins are e-mailed
 * through the message providers (the test outbox for a test-mode endpoint), and a `webhook_endpoint.disabled`
 * event carrying the endpoint is recorded (delivered to the organisation's other endpoints).
 */
@Injectable()
export class EndpointDisabledNotifier implements EndpointDisabledListener, OnModuleInit {
  constructor(
    private readonly delivery: DeliveryService,
    private readonly repo: WebhooksRepository,
    private readonly messages: MessagesService,
    private readonly accounts: AccountsService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
  ) {}

  onModuleInit(): void {
    this.delivery.onDisabled = this;
  }

  async endpointDisabled(endpoint: {
    id: string;
    organisationId: string;
    livemode: boolean;
    url: string;
  }): Promise<void> {
    const tenant = { organisationId: endpoint.organisationId, livemode: endpoint.livemode };
    const row = await this.repo.findEndpoint(tenant, endpoint.id);
    if (row)
      await this.tx.run((uow) =>
        this.events.record(uow, tenant, 'webhook_endpoint.disabled', toWebhookEndpointResponse(row)),
      );
    const mode = endpoint.livemode ? 'live' : 'test';
    for (const email of await this.accounts.adminEmails(endpoint.organisationId))
      await this.messages.send(tenant, ['email'], {
        to: { email },
        subject: `Webhook endpoint disabled: ${endpoint.url}`,
        body:
          `Every delivery to the ${mode}-mode webhook endpoint ${endpoint.id} (${endpoint.url}) has failed for 5 days, ` +
          `so it has been disabled and receives no more events. Fix the receiver, then re-enable the endpoint ` +
          `(PATCH /v1/webhook-endpoints/${endpoint.id} with {"status": "enabled"}); events of the last 30 days can be ` +
          `replayed with POST /v1/events/{evt_id}/redeliver.`,
        relatedId: endpoint.id,
      });
  }
}
