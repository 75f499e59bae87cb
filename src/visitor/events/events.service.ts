import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Tenant, WebhooksRepository } from '../webhooks/webhooks.repository';
import { WebhookQueue } from '../webhooks/delivery/webhook-queue';
import type { WebhookDeliveryRow } from '../webhooks/webhook.entity';

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  organisation_id: string;
  livemode: boolean;
  data: { object: unknown };
}

/**
 * The outbox. `record` writes the event and one delivery per subscribed endpoint in the caller's transaction;
 * the deliveries are enqueued only after that transaction commits. `object` must already be the public
 * response shape (with sensitive answers omitted): it is stored and sent as is.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly clock: Clock,
  ) {}

  /** The created_at of the last event each open transaction recorded. */
  private readonly lastInTransaction = new WeakMap<UnitOfWork, Date>();

  async record(uow: UnitOfWork, tenant: Tenant, type: string, object: unknown): Promise<EventEnvelope> {
    // The first attempt is due at the wall clock: created_at below may run a millisecond ahead of it, and a
    // delivery due later than the worker's clock would wait for the sweeper instead of its job.
    const dueAt = this.clock.now();
    // Events recorded one after the other in one transaction (visit.approved, then visit.checked_in) keep
    // their order when they share a millisecond.
    const now = this.clock.after(this.lastInTransaction.get(uow));
    this.lastInTransaction.set(uow, now);
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type,
      created_at: now.toISOString(),
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      data: { object },
    };
    const deliveryIds = await this.repo.insertEventWithDeliveries(
      uow.manager,
      {
        id: envelope.id,
        organisationId: tenant.organisationId,
        livemode: tenant.livemode,
        type,
        createdAt: now,
        body: JSON.stringify(envelope),
      },
      dueAt,
    );
    if (deliveryIds.length)
      uow.afterCommit(() =>
        this.queue.enqueue(deliveryIds.map((deliveryId) => ({ deliveryId, attempt: 1 }))),
      );
    return envelope;
  }

  /**
   * One new pending delivery of a stored event per endpoint, enqueued after commit. Used when the event is
   * recorded and when it is redelivered (the body, and so `webhook-id`, stay the same).
   */
  async fanOut(
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
    if (deliveries.length)
      uow.afterCommit(() => this.queue.enqueue(deliveries.map((d) => ({ deliveryId: d.id, attempt: 1 }))));
    return deliveries;
  }
}
