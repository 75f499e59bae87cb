import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { EVENT_TYPES, EXPLICIT_ONLY_EVENT_TYPES, isEventType } from '../../visitor/events/event-types';
import { planGives } from '../../visitor/platform/plans';
import { roleAllows, SCOPES } from '../../visitor/platform/scopes';
import { WebhookDeliveriesService } from '../../visitor/webhooks/webhook-deliveries.service';
import { WebhookEndpointsService } from '../../visitor/webhooks/webhook-endpoints.service';
import { toWebhookEndpointResponse } from '../../visitor/webhooks/dto/webhook-endpoint.response';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { failedAction, flashError, flashNotice, isClientError } from './flash';

const PATH = '/console/webhooks';
const PAGE_SIZE = 20;

/** The catalogue grouped by resource (the part of the type before the dot), for the event picker. */
export function eventGroups(selected: ReadonlySet<string>) {
  const groups = new Map<string, { type: string; checked: boolean; explicitOnly: boolean }[]>();
  for (const type of EVENT_TYPES) {
    const resource = type.split('.')[0];
    groups.set(resource, [
      ...(groups.get(resource) ?? []),
      {
        type,
        checked: selected.has(type),
        explicitOnly: (EXPLICIT_ONLY_EVENT_TYPES as readonly string[]).includes(type),
      },
    ]);
  }
  return [...groups].map(([resource, types]) => ({ resource, types }));
}

/** The event types a create form chose: `all` (→ `*`) or one checkbox `ev:<type>` per type. */
export function chosenEvents(form: Record<string, string | undefined>): string[] {
  if (form.all === 'on') return ['*'];
  return EVENT_TYPES.filter((t) => form[`ev:${t}`] === 'on');
}

const tenantOf = (t: ConsoleTenantOf) => ({ organisationId: t.organisationId, livemode: t.livemode });
/** Whether the plan allows changing webhooks in the console's mode (test mode always; live mode Growth and up). */
const webhooksInPlan = (t: ConsoleTenantOf) =>
  planGives({ livemode: t.livemode, organisation: { plan: t.plan } }, 'webhooks');

/**
 * Webhook endpoints in the console (`/console/webhooks`, `/console/webhooks/{whep_id}`; issue 31 page 9), for
 * Owners and Admins: list and create (event picker from the catalogue, the signing secret shown once), enable,
 * disable, rotate the secret (the overlap window shown), delete (confirmed), and per endpoint the delivery log with
 * every attempt, retry, a test send and the success rate of the last 24 hours. Everything goes through the services
 * `/v1/webhook-endpoints` and the console delivery log use; every change is audited with its request id.
 */
@ApiExcludeController()
@Controller('console/webhooks')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleWebhooksPageController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly audit: AuditService,
    @InjectConfig() private readonly config: Config,
  ) {}

  private readable(a: ConsoleCaller) {
    return new Set(SCOPES.filter((s) => roleAllows(a.role, s)));
  }

  private async record(
    req: FastifyRequest,
    a: ConsoleCaller,
    t: ConsoleTenantOf,
    action: string,
    id: string,
    data?: Record<string, unknown>,
  ) {
    await this.audit.record({
      organisationId: t.organisationId,
      livemode: t.livemode,
      action,
      actor: { type: 'console_account', id: a.id },
      target: { type: 'webhook_endpoint', id },
      data,
      request: req,
    });
  }

  private async listData(t: ConsoleTenantOf, q: Record<string, string | undefined>) {
    const page = await this.endpoints.list(tenantOf(t), { limit: PAGE_SIZE, cursor: q.cursor });
    return {
      endpoints: page.data.map((e) => ({
        id: e.id,
        url: e.url,
        description: e.description,
        events: e.enabled_events.join(', '),
        status: e.status,
        failing: e.disabled_reason === 'failing',
        created: when(e.created_at),
      })),
      pager: pagerLinks(PATH, q, page),
    };
  }

  @Get()
  @ConsolePage('console-webhooks')
  async list(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() q: Record<string, string | undefined>,
  ) {
    return {
      title: 'Webhooks',
      csrf,
      ...(await this.listData(t, q)),
      notice: flashNotice(q.notice),
      error: flashError(q),
      planActive: webhooksInPlan(t),
      groups: eventGroups(new Set()),
      values: { url: '', description: '', all: false },
      errors: [] as string[],
      created: null,
    };
  }

  /** Creates the endpoint and shows its signing secret this once (a re-render, not a redirect). */
  @Post()
  @ConsolePage('console-webhooks')
  @CheckCsrf()
  async create(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Record<string, string | undefined>,
  ) {
    const events = chosenEvents(form);
    const values = {
      url: (form.url ?? '').trim(),
      description: (form.description ?? '').trim(),
      all: form.all === 'on',
    };
    const base = {
      title: 'Webhooks',
      csrf,
      planActive: webhooksInPlan(t),
      notice: null,
      error: null as { message: string; requestId: string } | null,
    };
    try {
      if (!base.planActive)
        throw new ApiError(
          'plan_required',
          "This organisation's plan has no live webhooks: create endpoints in test mode, or change the plan.",
        );
      const created = await this.endpoints.create(
        tenantOf(t),
        { url: values.url, description: values.description, enabled_events: events },
        this.readable(a),
      );
      await this.record(req, a, t, 'webhook_endpoint.created', created.id, {
        url: created.url,
        enabled_events: created.enabled_events,
      });
      return {
        ...base,
        ...(await this.listData(t, {})),
        notice: 'Endpoint created.',
        groups: eventGroups(new Set()),
        values: { url: '', description: '', all: false },
        errors: [],
        created: { id: created.id, url: created.url, secret: created.secret },
      };
    } catch (e) {
      if (!isClientError(e)) throw e;
      req.ctx.errorCode = e.code;
      return {
        ...base,
        ...(await this.listData(t, {})),
        error: { message: 'The endpoint was not created.', requestId: String(req.id) },
        groups: eventGroups(new Set(events)),
        values,
        errors: e.errors.length ? e.errors.map((x) => `${fieldName(x.location)}: ${x.message}`) : [e.detail],
        created: null,
      };
    }
  }

  private async detailData(
    a: ConsoleCaller,
    t: ConsoleTenantOf,
    id: string,
    q: Record<string, string | undefined>,
  ) {
    const row = await this.endpoints.get(tenantOf(t), id);
    const e = toWebhookEndpointResponse(row);
    const [page, success] = await Promise.all([
      this.deliveries.ofEndpoint(a.organisation_id, id, { limit: PAGE_SIZE, cursor: q.cursor }),
      this.deliveries.successLastDay(a.organisation_id, id),
    ]);
    const withAttempts = await Promise.all(
      page.data.map((d) => this.deliveries.get(a.organisation_id, d.id)),
    );
    const overlapUntil =
      row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > Date.now()
        ? when(row.previousSecretExpiresAt)
        : null;
    return {
      title: `Webhook endpoint ${e.url}`,
      endpoint: {
        id: e.id,
        url: e.url,
        description: e.description,
        events: e.enabled_events.join(', '),
        status: e.status,
        disabledReason: e.disabled_reason,
        created: when(e.created_at),
        updated: when(e.updated_at),
        overlapUntil,
      },
      overlapHours: this.config.webhooks.secretOverlapHours,
      success: {
        total: success.total,
        succeeded: success.succeeded,
        percent: success.rate === null ? null : Math.round(success.rate * 1000) / 10,
      },
      deliveries: withAttempts.map((d) => ({
        id: d.id,
        eventId: d.event_id,
        status: d.status,
        attemptCount: d.attempt_count,
        created: when(d.created_at),
        next: d.next_attempt_at ? when(d.next_attempt_at) : null,
        attempts: d.attempts.map((x) => ({
          number: x.attempt_number,
          at: when(x.attempted_at),
          statusCode: x.status_code ?? '—',
          durationMs: x.duration_ms,
          error: x.error,
          excerpt: x.response_excerpt,
        })),
      })),
      pager: pagerLinks(`${PATH}/${encodeURIComponent(id)}`, q, page),
      eventTypes: EVENT_TYPES,
      testType: isEventType(q.type ?? '') ? q.type : 'visit.created',
      testResult: null as null | Record<string, unknown>,
      planActive: webhooksInPlan(t),
      secret: null as string | null,
      notice: flashNotice(q.notice),
      error: flashError(q),
    };
  }

  @Get(':whep_id')
  @ConsolePage('console-webhook')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('whep_id') id: string,
    @Query() q: Record<string, string | undefined>,
  ) {
    return { csrf, ...(await this.detailData(a, t, id, q)) };
  }

  /** Sends a signed sample event of the chosen type now and shows what the receiver answered (stores nothing). */
  @Post(':whep_id/test')
  @ConsolePage('console-webhook')
  @CheckCsrf()
  async test(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('whep_id') id: string,
    @Body() form: Record<string, string | undefined>,
  ) {
    const data = await this.detailData(a, t, id, { type: form.type });
    try {
      if (!data.planActive)
        throw new ApiError('plan_required', "This organisation's plan has no live webhooks.");
      const r = await this.endpoints.test(tenantOf(t), id, form.type ?? '');
      await this.record(req, a, t, 'webhook_endpoint.test_sent', id, { type: r.type, event_id: r.event_id });
      return {
        ...data,
        csrf,
        testResult: {
          type: r.type,
          eventId: r.event_id,
          outcome: r.outcome,
          statusCode: r.status_code || '—',
          durationMs: r.duration_ms,
          error: r.error,
        },
      };
    } catch (e) {
      if (!isClientError(e)) throw e;
      req.ctx.errorCode = e.code;
      return {
        ...data,
        csrf,
        error: { message: `The test was not sent: ${e.detail}`, requestId: String(req.id) },
      };
    }
  }

  @Post(':whep_id/enable')
  @PostedForm()
  enable(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('whep_id') id: string,
  ) {
    return this.setStatus(req, a, t, id, 'enabled');
  }

  @Post(':whep_id/disable')
  @PostedForm()
  disable(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('whep_id') id: string,
  ) {
    return this.setStatus(req, a, t, id, 'disabled');
  }

  private async setStatus(
    req: FastifyRequest,
    a: ConsoleCaller,
    t: ConsoleTenantOf,
    id: string,
    status: 'enabled' | 'disabled',
  ) {
    const back = `${PATH}/${encodeURIComponent(id)}`;
    try {
      const planActive = webhooksInPlan(t);
      await this.endpoints.update(tenantOf(t), id, { status }, planActive);
      await this.record(req, a, t, `webhook_endpoint.${status}`, id);
      return { url: `${back}?notice=${status}`, statusCode: 303 };
    } catch (e) {
      return failedAction(req, e, back);
    }
  }

  /** The confirmation step of a rotation (works without JavaScript). */
  @Get(':whep_id/rotate')
  @ConsolePage('console-confirm')
  async confirmRotate(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('whep_id') id: string,
  ) {
    const row = await this.endpoints.get(tenantOf(t), id);
    const hours = this.config.webhooks.secretOverlapHours;
    return {
      title: 'Rotate the signing secret?',
      question:
        hours > 0
          ? `A new secret signs every delivery to ${row.url} from now on; the current one keeps signing beside it for ${hours} hours, so your receiver can switch over.`
          : `A new secret signs every delivery to ${row.url} from now on; the current one stops at once.`,
      action: `${PATH}/${encodeURIComponent(id)}/rotate`,
      confirmLabel: 'Rotate the secret',
      cancel: `${PATH}/${encodeURIComponent(id)}`,
      csrf,
    };
  }

  /** Rotates and shows the new secret this once, with the end of the overlap window. */
  @Post(':whep_id/rotate')
  @ConsolePage('console-webhook')
  @CheckCsrf()
  async rotate(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('whep_id') id: string,
  ) {
    const planActive = webhooksInPlan(t);
    if (!planActive) {
      const data = await this.detailData(a, t, id, {});
      req.ctx.errorCode = 'plan_required';
      return {
        ...data,
        csrf,
        error: { message: "This organisation's plan has no live webhooks.", requestId: String(req.id) },
      };
    }
    const rotated = await this.endpoints.rotateSecret(tenantOf(t), id);
    await this.record(req, a, t, 'webhook_endpoint.secret_rotated', id);
    const data = await this.detailData(a, t, id, {});
    return { ...data, csrf, notice: 'Signing secret rotated.', secret: rotated.secret };
  }

  @Get(':whep_id/delete')
  @ConsolePage('console-confirm')
  async confirmDelete(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('whep_id') id: string,
  ) {
    const row = await this.endpoints.get(tenantOf(t), id);
    return {
      title: 'Delete this endpoint?',
      question: `Deleting ${row.url} stops every delivery to it; deliveries still pending end as failed. This cannot be undone.`,
      action: `${PATH}/${encodeURIComponent(id)}/delete`,
      confirmLabel: 'Delete the endpoint',
      cancel: `${PATH}/${encodeURIComponent(id)}`,
      csrf,
    };
  }

  @Post(':whep_id/delete')
  @PostedForm()
  async remove(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('whep_id') id: string,
  ) {
    try {
      await this.endpoints.remove(tenantOf(t), id);
      await this.record(req, a, t, 'webhook_endpoint.deleted', id);
      return { url: `${PATH}?notice=deleted`, statusCode: 303 };
    } catch (e) {
      return failedAction(req, e, `${PATH}/${encodeURIComponent(id)}`);
    }
  }

  @Post(':whep_id/deliveries/:dlv_id/retry')
  @PostedForm()
  async retry(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('whep_id') id: string,
    @Param('dlv_id') deliveryId: string,
  ) {
    const back = `${PATH}/${encodeURIComponent(id)}`;
    try {
      await this.endpoints.get(tenantOf(t), id);
      const d = await this.deliveries.get(a.organisation_id, deliveryId);
      if (d.endpoint_id !== id) throw ApiError.notFound(`Delivery ${deliveryId}`);
      await this.deliveries.retry(a.organisation_id, deliveryId);
      await this.record(req, a, t, 'webhook_delivery.retried', id, { delivery_id: deliveryId });
      return { url: `${back}?notice=retried`, statusCode: 303 };
    } catch (e) {
      return failedAction(req, e, back);
    }
  }
}

const fieldName = (location: string) =>
  location
    .replace(/^body\./, '')
    .replace(/^enabled_events(\.\d+)?$/, 'events')
    .replace(/\.\d+$/, '');
