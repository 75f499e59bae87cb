import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, UnitOfWork } from '../../database/unit-of-work';
import { EventSubscriber, EventsService, RecordedEvent } from '../events/events.service';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { JobQueue } from '../../common/queue/job-queue';
import type { RedeliverResponse } from './dto/redeliver.response';
import { WebhookDeliveryRow, WebhooksRepository } from './webhooks.repository';

/**
 * Webhooks' side of the outbox: subscribed to every recorded event, it writes one delivery per subscribed endpoint
 * in the recording transaction and enqueues them after commit; it also replays stored events (redelivery).
 */
@Injectable()
export class WebhookFanOut implements EventSubscriber, OnModuleInit {
  constructor(
    private readonly events: EventsService,
    private readonly repo: WebhooksRepository,
    private readonly jobs: JobQueue,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.events.subscribe(this);
  }

  async onRecorded(uow: UnitOfWork, tenant: Tenant, events: readonly RecordedEvent[]): Promise<void> {
    const ids = await this.repo.insertDeliveriesOfEvents(
      uow.manager,
      tenant,
      events.map(({ envelope, createdAt, dueAt }) => ({
        id: envelope.id,
        type: envelope.type,
        createdAt,
        dueAt,
      })),
    );
    this.enqueueAfterCommit(uow, ids);
  }

  /**
   * Replays a stored event (same body, and so the same `webhook-id`) to one enabled endpoint subscribed to its
   * type, or to every enabled endpoint subscribed to it now: one new pending delivery each, enqueued after commit.
   * Subscribed means what it means for the first delivery (`subscribedEndpoints`): `["*"]` does not cover
   * watchlist.matched. An event whose type the caller may not read with `scopes` is `not_found`, as on GET.
   */
  async redeliver(
    tenant: Tenant,
    scopes: ReadonlySet<Scope>,
    eventId: string,
    endpointId?: string,
  ): Promise<RedeliverResponse> {
    const event = await this.events.find(tenant, scopes, eventId);
    return this.tx.run(async (uow) => {
      let endpointIds: string[];
      if (endpointId) {
        const endpoint = await this.repo.findEndpoint(tenant, endpointId);
        if (!endpoint)
          throw ApiError.validation([
            { location: 'body.endpoint_id', message: `no webhook endpoint ${endpointId} in this mode` },
          ]);
        if (endpoint.status !== 'enabled')
          throw new ApiError(
            'invalid_state',
            `Webhook endpoint ${endpoint.id} is disabled; enable it first.`,
          );
        endpointIds = (await this.repo.subscribedEndpoints(uow.manager, tenant, event.type, endpoint.id)).map(
          (e) => e.id,
        );
        if (!endpointIds.length)
          throw ApiError.validation([
            {
              location: 'body.endpoint_id',
              message: `webhook endpoint ${endpoint.id} is not subscribed to ${event.type}${
                endpoint.enabledEvents.includes('*')
                  ? ' (["*"] does not cover it; list it to receive it)'
                  : ''
              }`,
            },
          ]);
      } else {
        endpointIds = (await this.repo.subscribedEndpoints(uow.manager, tenant, event.type)).map((e) => e.id);
      }
      const deliveries = await this.fanOut(uow, tenant, event.id, endpointIds);
      return {
        event_id: event.id,
        deliveries: deliveries.map((d) => ({
          id: d.id,
          endpoint_id: d.endpointId,
          status: 'pending' as const,
        })),
      };
    }, IS_RESPONSE);
  }

  private async fanOut(
    uow: UnitOfWork,
    tenant: Tenant,
    eventId: string,
    endpointIds: string[],
  ): Promise<WebhookDeliveryRow[]> {
    const now = this.clock.now();
    const deliveries: WebhookDeliveryRow[] = endpointIds.map((endpointId) => ({
      id: newId('dlv'),
      organisationId: tenant.organisationId,
      livemode: tenant.livemode,
      eventId,
      endpointId,
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      lockedUntil: null,
      firstFailureAt: null,
      lastAttemptAt: null,
      lastStatusCode: null,
      lastError: null,
      heldSince: null,
      createdAt: now,
      updatedAt: now,
    }));
    await this.repo.insertDeliveries(uow.manager, deliveries);
    this.enqueueAfterCommit(
      uow,
      deliveries.map((d) => d.id),
    );
    return deliveries;
  }

  /**
   * After commit, without the request waiting for Redis: one wake-up job (named after a delivery) for the deliveries
   * of every event committed in this turn of the event loop. It reaches Redis after they are committed, and the
   * worker it wakes claims every due delivery, so one is enough (`addSoon`); a lost add is the sweeper's.
   */
  private enqueueAfterCommit(uow: UnitOfWork, deliveryIds: string[]): void {
    if (deliveryIds.length)
      uow.afterCommit(() => {
        if (this.waking) return;
        this.waking = true;
        setImmediate(() => (this.waking = false));
        this.jobs.addSoon('webhooks.deliver', { deliveryId: deliveryIds[0], attempt: 1 });
      });
  }

  /** A wake-up is on its way for this turn's commits. */
  private waking = false;
}
