import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import { JobQueue } from '../../common/queue/job-queue';
import {
  toAttemptResponse,
  toDeliveryResponse,
  WebhookDeliveryResponse,
  WebhookDeliveryWithAttemptsResponse,
} from './dto/delivery.response';
import type { UnitOfWork } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import type { Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import { WebhookDeliveryRow, WebhooksRepository } from './webhooks.repository';

/**
 * The delivery log as the console shows it: an organisation's deliveries (both modes), one-off retries, and the
 * support lookup of every delivery of an event across organisations; and erasure's step in it (receivers' answers).
 */
@Injectable()
@HoldsVisitorData(20)
export class WebhookDeliveriesService implements VisitorDataHolder {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly events: EventsService,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** An endpoint's deliveries, newest first; `not_found` unless the endpoint is the organisation's. */
  async ofEndpoint(
    organisationId: string,
    endpointId: string,
    q: ListQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const endpoint = await this.repo.endpointOfOrganisation(organisationId, endpointId);
    if (!endpoint) throw ApiError.notFound(`Webhook endpoint ${endpointId}`);
    return this.cursors.codec.createdPage(
      `console-deliveries:${endpointId}`,
      { organisationId, livemode: endpoint.livemode },
      q,
      (limit, before) => this.repo.deliveriesOfEndpoint(organisationId, endpointId, limit + 1, before),
      toDeliveryResponse,
    );
  }

  async get(organisationId: string, id: string): Promise<WebhookDeliveryWithAttemptsResponse> {
    return this.withAttempts(await this.find(organisationId, id));
  }

  /**
   * Makes a delivery due again now (same webhook-id and body): `invalid_state` when its endpoint is deleted or
   * disabled, `conflict` while a worker is attempting it. Enqueued at once; the sweeper covers a lost enqueue.
   */
  async retry(organisationId: string, id: string): Promise<WebhookDeliveryResponse> {
    const d = await this.find(organisationId, id);
    const endpoint = await this.repo.endpointOfOrganisation(organisationId, d.endpointId);
    if (!endpoint || endpoint.deletedAt || endpoint.status !== 'enabled')
      throw new ApiError(
        'invalid_state',
        `The endpoint of delivery ${id} is deleted or disabled; enable it first.`,
      );
    const now = this.clock.now();
    const retried = await this.repo.retryDelivery(id, now);
    if (!retried)
      throw new ApiError('conflict', `Delivery ${id} is being attempted right now; try again shortly.`);
    await this.jobs
      .add('webhooks.deliver', [
        { data: { deliveryId: id, attempt: retried.attemptCount + 1, retryOf: now.getTime() } },
      ])
      .catch(() => undefined);
    return toDeliveryResponse(retried);
  }

  /** Attempts to the organisation's endpoint in the last 24 hours and how many succeeded (2xx). */
  async successLastDay(
    organisationId: string,
    endpointId: string,
  ): Promise<{ total: number; succeeded: number; rate: number | null }> {
    const since = new Date(this.clock.now().getTime() - 86_400_000);
    const { total, succeeded } = await this.repo.attemptOutcomes(organisationId, endpointId, since);
    return { total, succeeded, rate: total === 0 ? null : succeeded / total };
  }

  /** Support staff: every delivery of an event, with attempts, whatever the organisation. */
  async ofEvent(eventId: string): Promise<WebhookDeliveryWithAttemptsResponse[]> {
    const rows = await this.repo.deliveriesOfEvent(eventId);
    return Promise.all(rows.map((d) => this.withAttempts(d)));
  }

  /**
   * Erasure: a receiver's answer may echo the payload it was sent, so the excerpt of every attempt to deliver an
   * event that names the person or one of their records (the visitor's id, `relatedIds`: their visits and
   * bookings) is dropped, whatever the event's type. Only the organisation's events are searched (EventsService).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    const texts = visitorId === null ? [...relatedIds] : [visitorId, ...relatedIds];
    const eventIds = await this.events.idsMentioning(uow, tenant, texts);
    await this.repo.eraseExcerpts(uow.manager, tenant, eventIds);
  }

  private async find(organisationId: string, id: string): Promise<WebhookDeliveryRow> {
    const d = await this.repo.findDelivery(organisationId, id);
    if (!d) throw ApiError.notFound(`Delivery ${id}`);
    return d;
  }

  private async withAttempts(d: WebhookDeliveryRow): Promise<WebhookDeliveryWithAttemptsResponse> {
    return { ...toDeliveryResponse(d), attempts: (await this.repo.attemptsOf(d.id)).map(toAttemptResponse) };
  }
}
