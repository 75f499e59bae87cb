import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { ERROR_CODES, ErrorCode, visitorCode, visitorCodeInfo } from '../../common/errors/error-codes';
import type { RequestLogEntry } from '../../ops/request-log/request-log.entry';
import { RequestLogFilter, RequestLogService } from '../../ops/request-log/request-log.service';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditTrailService } from '../../visitor/audit/audit-trail.service';
import { EventsService } from '../../visitor/events/events.service';
import { roleAllows, SCOPES } from '../../visitor/platform/scopes';
import { WebhookDeliveriesService } from '../../visitor/webhooks/webhook-deliveries.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';

const PATH = '/console/requests';
const PAGE_SIZE = 25;
const DAY = 86_400_000;
/** How far back the log is searched without a date (the console's "recent"). */
const RECENT_DAYS = 7;
const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;
const ERROR_REF = /^ERR-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$/i;
const STATUSES = ['2xx', '4xx', '5xx', 'failed'];

/** A credential id shown redacted: its kind prefix and the first four characters after it. */
export const redactCredential = (id: string | null): string | null => {
  if (!id) return null;
  const cut = id.indexOf('_');
  return `${id.slice(0, cut + 1 + 4)}…`;
};

const day = (v: string | undefined, end: boolean): Date | null => {
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const d = new Date(`${v}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) ? null : end ? new Date(d.getTime() + DAY - 1) : d;
};

/** `<ms>.<req_id>`: the last request of a page (no secret in it: the filters are applied again server-side). */
const parseCursor = (v: string | undefined): { at: Date; id: string } | null => {
  const m = /^(\d{1,15})\.(req_[0-9A-Za-z]{22})$/.exec(v ?? '');
  return m ? { at: new Date(+m[1]), id: m[2] } : null;
};

function codeWords(code: string | null): string | null {
  if (!code || !(ERROR_CODES as readonly string[]).includes(code)) return null;
  const info = visitorCodeInfo(visitorCode(code as ErrorCode));
  return `${info.title}: ${info.cause}`;
}

/**
 * The request log in the console (`/console/requests`, issue 31 page 13). Owners and Admins see their
 * organisation's own `/v1` requests in the console's mode (filter by status, path, credential and date; cursor
 * pages, newest first) and one request with what it caused, found by its request id: the audit rows it wrote and
 * the events it recorded (`visitor.event.request_id`), with their webhook deliveries. Support accounts (role `support`, made by the operator) look up any
 * request by request id or public error ref and search every organisation's log by organisation, time and status.
 * Reads only the request log service (`src/ops`), the audit trail, events and the delivery log.
 */
@ApiExcludeController()
@Controller('console/requests')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleRequestsPageController {
  constructor(
    private readonly log: RequestLogService,
    private readonly audit: AuditTrailService,
    private readonly events: EventsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ConsolePage('console-requests')
  async list(
    @Req() req: FastifyRequest,
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query() q: Record<string, string | undefined>,
  ) {
    const support = a.role === 'support';
    const values = {
      status: STATUSES.includes(q.status ?? '') || /^[1-5]\d\d$/.test(q.status ?? '') ? q.status! : '',
      path: (q.path ?? '').slice(0, 200),
      credential: (q.credential ?? '').replace(/…$/, '').slice(0, 64),
      from: day(q.from, false) ? q.from! : '',
      to: day(q.to, true) ? q.to! : '',
      organisation: support ? (q.organisation ?? '').slice(0, 64) : '',
      lookup: (q.lookup ?? '').trim().slice(0, 64),
    };
    const base = {
      title: 'Requests',
      support,
      values,
      statuses: STATUSES,
      mode: t.livemode ? 'live' : 'test',
    };
    const badDates = (q.from && !values.from) || (q.to && !values.to);
    if (badDates) {
      req.ctx.errorCode = 'validation_failed';
      return {
        ...base,
        rows: [],
        pager: null,
        exhausted: true,
        lookedUp: false,
        error: { message: 'Dates are written YYYY-MM-DD.', requestId: String(req.id) },
      };
    }

    if (values.lookup) {
      const isId = REQUEST_ID.test(values.lookup);
      const isRef = ERROR_REF.test(values.lookup);
      if (!isId && !(isRef && support))
        return {
          ...base,
          rows: [],
          pager: null,
          exhausted: true,
          lookedUp: true,
          error: {
            message: support
              ? 'Look up a request id (req_…) or a public error ref (ERR-XXXX-XXXX-XXXX).'
              : 'Look up a request id (req_…).',
            requestId: String(req.id),
          },
        };
      await this.log.flush();
      const found = (await this.log.find(values.lookup)).filter((e) => this.visible(a, t, e));
      return { ...base, rows: found.map((e) => this.row(e)), pager: null, exhausted: true, lookedUp: true };
    }

    const now = this.clock.now();
    const to = day(values.to, true) ?? now;
    const from =
      day(values.from, false) ?? new Date(Math.min(to.getTime(), now.getTime()) - RECENT_DAYS * DAY);
    const filter: RequestLogFilter = {
      from,
      to,
      status: values.status || undefined,
      path: values.path || undefined,
      credential: values.credential || undefined,
      ...(support
        ? { organisationId: values.organisation || undefined }
        : { organisationId: t.organisationId, surface: 'visitor', livemode: t.livemode }),
    };
    const page = await this.log.search(filter, PAGE_SIZE, parseCursor(q.cursor));
    const last = page.entries.at(-1);
    const query = Object.fromEntries(
      Object.entries({ ...values, cursor: q.cursor, trail: q.trail }).filter(([, v]) => v),
    );
    return {
      ...base,
      rows: page.entries.map((e) => this.row(e)),
      pager: pagerLinks(PATH, query, {
        has_more: page.hasMore,
        next_cursor: last ? `${last.receivedAt.getTime()}.${last.requestId}` : null,
      }),
      exhausted: page.exhausted,
      lookedUp: false,
      recentDays: RECENT_DAYS,
    };
  }

  /** Owners and Admins: their organisation's /v1 requests in the console's mode; support: every request. */
  private visible(a: ConsoleCaller, t: ConsoleTenantOf, e: RequestLogEntry): boolean {
    if (a.role === 'support') return true;
    return e.organisationId === t.organisationId && e.surface === 'visitor' && e.livemode === t.livemode;
  }

  private row(e: RequestLogEntry) {
    return {
      id: e.requestId,
      at: when(e.receivedAt),
      method: e.method,
      path: e.path,
      status: e.status,
      code: e.errorCode,
      ref: e.errorRef,
      durationMs: Math.round(e.durationMs * 100) / 100,
      credential: redactCredential(e.credentialId),
      organisation: e.organisationId,
      surface: e.surface,
      mode: e.livemode === null ? '' : e.livemode ? 'live' : 'test',
    };
  }

  @Get(':request_id')
  @ConsolePage('console-request')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('request_id') id: string,
  ) {
    if (!REQUEST_ID.test(id)) throw ApiError.notFound(`Request ${id.slice(0, 64)}`);
    await this.log.flush();
    const e = (await this.log.find(id)).find((x) => x.requestId === id);
    if (!e || !this.visible(a, t, e)) throw ApiError.notFound(`Request ${id}`);
    // What it caused, in its own organisation, by its request id (support looks across organisations,
    // read-only, and sees the audit rows only).
    const org = e.organisationId;
    const audit = org ? await this.audit.ofRequest(org, e.requestId, e.receivedAt, e.durationMs) : [];
    let events: {
      id: string;
      type: string;
      at: string;
      deliveries: { id: string; status: string; endpoint: string; attempts: number }[];
    }[] = [];
    if (org && e.livemode !== null && a.organisation_id === org) {
      const scopes = new Set(SCOPES.filter((s) => roleAllows(a.role, s)));
      const recorded = await this.events.ofRequest(
        { organisationId: org, livemode: e.livemode },
        scopes,
        e.requestId,
        50,
      );
      events = await Promise.all(
        recorded.map(async (ev) => ({
          id: ev.id,
          type: ev.type,
          at: when(ev.created_at),
          deliveries: roleAllows(a.role, 'webhooks:manage')
            ? (await this.deliveries.ofEvent(ev.id)).map((d) => ({
                id: d.id,
                status: d.status,
                endpoint: d.endpoint_id,
                attempts: d.attempt_count,
              }))
            : [],
        })),
      );
    }
    return {
      title: `Request ${e.requestId}`,
      r: { ...this.row(e), credentialKind: e.credentialId?.split('_')[0] ?? null, clientIp: e.clientIp },
      detail: codeWords(e.errorCode),
      audit: audit.map((x) => ({
        id: x.id,
        action: x.action,
        actor: `${x.actor.type}${x.actor.id ? ` ${x.actor.id}` : ''}`,
        target: x.target ? `${x.target.type} ${x.target.id}` : '',
        at: when(x.created_at),
      })),
      events,
      eventsShown: org !== null && e.livemode !== null && a.organisation_id === org,
      webhooksShown: roleAllows(a.role, 'webhooks:manage'),
    };
  }
}
