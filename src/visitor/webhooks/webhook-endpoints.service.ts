import { Injectable } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions } from '../../database/unit-of-work';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import { EVENT_TYPES, eventReadScope, isEventType } from '../events/event-types';
import type { Scope } from '../platform/scopes';
import { checkDestination, DestinationRefused } from './delivery/destination';
import { DeliveryService } from './delivery/delivery.service';
import { newSigningSecret } from './delivery/signature';
import { EventSamples } from '../events/event-samples';
import { Tenant, WebhookEndpointRow, WebhooksRepository } from './webhooks.repository';
import {
  toWebhookEndpointResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  WebhookTestResultResponse,
} from './dto/webhook-endpoint.response';

export interface EndpointInput {
  url?: string;
  description?: string;
  enabled_events?: string[];
  status?: 'enabled' | 'disabled';
}

/** Webhook endpoints: rules of creation and change, secret rotation, synchronous test sends. */
@Injectable()
export class WebhookEndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly delivery: DeliveryService,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
    private readonly samples: EventSamples,
    private readonly tx: Transactions,
    @InjectConfig() private readonly config: Config,
  ) {
    this.box = new SecretBox(config.secrets.encryptionKey);
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkDestination(url, {
        allowLocalTargets: this.config.webhooks.allowLocalTargets,
        resolver: this.delivery.resolver,
      });
    } catch (e) {
      if (e instanceof DestinationRefused)
        throw ApiError.validation([{ location: 'body.url', message: e.message }]);
      throw e;
    }
  }

  private checkEvents(events: string[], readable?: ReadonlySet<Scope>): void {
    if (events.length === 0)
      throw ApiError.validation([
        { location: 'body.enabled_events', message: 'must list at least one event type, or "*"' },
      ]);
    if (events.includes('*') && events.length > 1)
      throw ApiError.validation([{ location: 'body.enabled_events', message: '"*" must be the only entry' }]);
    const errors = events
      .map((t, i) => ({ t, i }))
      .filter(({ t }) => t !== '*' && !isEventType(t))
      .map(({ t, i }) => ({ location: `body.enabled_events.${i}`, message: `unknown event type "${t}"` }));
    if (errors.length) throw ApiError.validation(errors);
    if (!readable) return;
    // An endpoint receives the objects of the types it names: naming one needs that type's read scope, as
    // reading it at GET /v1/events does ("*" is the organisation's subscription to all but watchlist.matched).
    const missing = [...new Set(events.filter(isEventType).map(eventReadScope)).values()].filter(
      (scope) => !readable.has(scope),
    );
    if (missing.length)
      throw new ApiError(
        'scope_missing',
        `Subscribing to these event types needs the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''}, which the credential lacks.`,
      );
  }

  /** `readable`: the scopes the caller may use (its subscriptions need them); absent for the operator's own calls. */
  async create(
    tenant: Tenant,
    input: Required<Pick<EndpointInput, 'url' | 'enabled_events'>> & EndpointInput,
    readable?: ReadonlySet<Scope>,
  ): Promise<WebhookEndpointWithSecretResponse> {
    this.checkEvents(input.enabled_events, readable);
    await this.checkUrl(input.url);
    const now = this.clock.tick();
    const secret = newSigningSecret();
    const row: WebhookEndpointRow = {
      id: newId('whep'),
      ...tenant,
      url: input.url,
      description: input.description ?? '',
      enabledEvents: [...new Set(input.enabled_events)],
      status: input.status ?? 'enabled',
      disabledReason: input.status === 'disabled' ? 'disabled_by_user' : null,
      secretSealed: this.box.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    // the answer (with the secret, shown only here) is stored with the endpoint, so a retry after a crash replays it
    return this.tx.run(async (uow) => {
      await this.repo.insertEndpoint(row, uow.manager);
      return { ...toWebhookEndpointResponse(row), secret };
    }, IS_RESPONSE);
  }

  async get(tenant: Tenant, id: string): Promise<WebhookEndpointRow> {
    const row = await this.repo.findEndpoint(tenant, id);
    if (!row) throw ApiError.notFound(`Webhook endpoint ${id}`);
    return row;
  }

  /**
   * `planActive` false: the organisation's plan no longer includes webhooks (live mode). Its endpoints stay;
   * they may be disabled (or deleted) but not changed or enabled until the plan returns.
   */
  async update(
    tenant: Tenant,
    id: string,
    input: EndpointInput,
    planActive = true,
    readable?: ReadonlySet<Scope>,
  ): Promise<WebhookEndpointResponse> {
    const row = await this.get(tenant, id);
    const onlyDisables = Object.entries(input).every(
      ([k, v]) => v === undefined || (k === 'status' && v === 'disabled'),
    );
    if (!planActive && !onlyDisables)
      throw new ApiError(
        'plan_required',
        "This organisation's plan no longer includes live webhooks: its endpoints can be disabled or deleted, but not changed or enabled.",
      );
    if (input.enabled_events) this.checkEvents(input.enabled_events, readable);
    if (input.url !== undefined) await this.checkUrl(input.url);
    const changes: Partial<WebhookEndpointRow> = { updatedAt: this.clock.now() };
    if (input.url !== undefined) changes.url = input.url;
    if (input.description !== undefined) changes.description = input.description;
    if (input.enabled_events) changes.enabledEvents = [...new Set(input.enabled_events)];
    if (input.status === 'enabled')
      Object.assign(changes, { status: 'enabled', disabledReason: null, failingSince: null });
    if (input.status === 'disabled' && row.status === 'enabled')
      Object.assign(changes, { status: 'disabled', disabledReason: 'disabled_by_user' });
    const updated = await this.repo.updateEndpoint(tenant, id, changes);
    return toWebhookEndpointResponse(updated);
  }

  async list(tenant: Tenant, q: ListQuery): Promise<Page<WebhookEndpointResponse>> {
    return this.cursors.codec.createdPage(
      'webhook-endpoints',
      tenant,
      q,
      (limit, after) => this.repo.listEndpoints(tenant, limit + 1, after),
      toWebhookEndpointResponse,
    );
  }

  async remove(tenant: Tenant, id: string): Promise<void> {
    await this.get(tenant, id);
    await this.repo.deleteEndpoint(tenant, id, this.clock.now());
  }

  /** A new secret; the old one keeps signing (second signature) for WEBHOOK_SECRET_OVERLAP_HOURS. */
  async rotateSecret(tenant: Tenant, id: string): Promise<WebhookEndpointWithSecretResponse> {
    const now = this.clock.now();
    const secret = newSigningSecret();
    const overlapMs = this.config.webhooks.secretOverlapHours * 3_600_000;
    // the answer is stored with the rotation, so a retry after a crash replays it rather than rotating again
    return this.tx.run(async (uow) => {
      const row = await this.repo.findEndpoint(tenant, id, uow.manager, true);
      if (!row) throw ApiError.notFound(`Webhook endpoint ${id}`);
      const updated = await this.repo.updateEndpoint(
        tenant,
        id,
        {
          secretSealed: this.box.seal(secret),
          previousSecretSealed: overlapMs > 0 ? row.secretSealed : null,
          previousSecretExpiresAt: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
          updatedAt: now,
        },
        uow.manager,
      );
      return { ...toWebhookEndpointResponse(updated), secret };
    }, IS_RESPONSE);
  }

  /**
   * Sends a signed sample event of `type` now (`data.object` in the shape the type's own endpoint returns, from
   * the EventSamples its domain registered) and reports what the receiver said; stores nothing.
   */
  async test(tenant: Tenant, id: string, type: string): Promise<WebhookTestResultResponse> {
    if (!isEventType(type))
      throw ApiError.validation([
        { location: 'body.type', message: `must be one of ${EVENT_TYPES.join(', ')}` },
      ]);
    const row = await this.get(tenant, id);
    const now = this.clock.now();
    const eventId = newId('evt');
    const body = JSON.stringify({
      id: eventId,
      type,
      created_at: now.toISOString(),
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      data: {
        object:
          type === 'webhook_endpoint.disabled'
            ? // the endpoint itself, as the notice of its disabling would carry it
              toWebhookEndpointResponse({
                ...row,
                status: 'disabled',
                disabledReason: 'failing',
                updatedAt: now,
              })
            : this.samples.sample(type, tenant, now),
      },
    });
    const result = await this.delivery.post(
      row.url,
      eventId,
      body,
      this.delivery.signingSecrets(row, now),
      now,
    );
    return {
      endpoint_id: row.id,
      event_id: eventId,
      type,
      attempted_at: now.toISOString(),
      outcome: result.ok ? 'succeeded' : 'failed',
      status_code: result.statusCode ?? 0,
      duration_ms: result.durationMs,
      error: result.error,
    };
  }
}
