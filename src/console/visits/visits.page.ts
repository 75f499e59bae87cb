import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken } from '../../pages/page.decorator';
import { ForBrowsers } from '../../pages/page-framework';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { EventsService } from '../../visitor/events/events.service';
import { FormsService } from '../../visitor/forms/forms.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PeopleService } from '../../visitor/people/people.service';
import { roleAllows, SCOPES } from '../../visitor/platform/scopes';
import type { VisitsQuery } from '../../visitor/visits/dto/visit.request';
import { VISIT_STATUSES, VISIT_TRANSITIONS, VisitAction } from '../../visitor/visits/visit-state-machine';
import { VisitCaller, VisitsService } from '../../visitor/visits/visits.service';
import { WebhookDeliveriesService } from '../../visitor/webhooks/webhook-deliveries.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { localDay, STATUS_WORDS, when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { answersOf, seesProtectedAnswers } from './visit-view';

/** The actions of a visit's page: URL segment, the state machine's action, button label, what the notice says. */
const ACTIONS: { segment: string; action: VisitAction; label: string; done: string }[] = [
  { segment: 'check-in', action: 'check_in', label: 'Check in', done: 'Checked in.' },
  { segment: 'approve', action: 'approve', label: 'Approve', done: 'Approved.' },
  { segment: 'deny', action: 'deny', label: 'Deny', done: 'Denied.' },
  { segment: 'check-out', action: 'check_out', label: 'Check out', done: 'Checked out.' },
  { segment: 'cancel', action: 'cancel', label: 'Cancel visit', done: 'Cancelled.' },
];
/** Statuses in which a visit gets a new pass (the service refuses the others). */
const RESENDABLE = ['expected', 'awaiting_approval', 'checked_in'];

/** Fixed sentences for the errors an action can meet (never text from the URL). */
const ERRORS: Record<string, string> = {
  invalid_state: 'The visit changed meanwhile: its status no longer allows that. It is shown as it is now.',
  validation_failed: 'That was not accepted: check the reason (at most 500 characters).',
  plan_required: "The organisation's plan does not allow this.",
  conflict: 'Someone else is changing this visit right now; try again.',
};
const NOTICES: Record<string, string> = Object.fromEntries([
  ...ACTIONS.map((a) => [a.segment, a.done]),
  ['resend-pass', 'A new pass is on its way; earlier passes stop working.'],
]);

const DATE = /^\d{4}-\d{2}-(\d{2})$/;
const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The instants of a calendar day (YYYY-MM-DD) in a time zone. */
export function dayIn(date: string, timeZone: string): { from: Date; to: Date } {
  const [y, m, d] = date.split('-').map(Number);
  let at = Date.UTC(y, m - 1, d, 12);
  for (let i = 0; i < 3; i++) {
    const day = localDay(new Date(at), timeZone);
    if (day.label === date) return { from: day.from, to: day.to };
    at += day.label < date ? 43_200_000 : -43_200_000;
  }
  throw ApiError.validation([{ location: 'query.date', message: 'is not a day in the time zone' }]);
}

/**
 * The console's visits (`/console/visits`, issue 31 page 4): the list filtered by site, status, day and visitor
 * name, paged by cursor; one visit with its timeline (events and their webhook deliveries), its pass with resend,
 * the actions its status allows, and its answers (protected ones only for Owners and Admins). Every read and
 * change goes through VisitsService, as /v1 does; every change is audited.
 */
@ApiExcludeController()
@Controller('console/visits')
@ConsoleAuth(...consoleRoles('/console/visits'))
export class ConsoleVisitsPageController {
  constructor(
    private readonly visits: VisitsService,
    private readonly organisations: OrganisationsService,
    private readonly people: PeopleService,
    private readonly forms: FormsService,
    private readonly events: EventsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly audit: AuditService,
  ) {}

  private caller(t: ConsoleTenantOf): VisitCaller {
    return {
      tenant: { organisationId: t.organisationId, livemode: t.livemode },
      hiddenBefore: null,
      seesWatchlist: true,
    };
  }

  @Get()
  @ConsolePage('console-visits')
  async list(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    const tenant = { organisationId: t.organisationId, livemode: t.livemode };
    const filters = {
      site: str(query.site),
      status: str(query.status),
      date: str(query.date),
      name: str(query.name),
    };
    // The organisation's time zone is read only when a day is asked for.
    const org = filters.date ? await this.organisations.organisation(t.organisationId) : null;
    const errors: string[] = [];
    const q: VisitsQuery & Record<string, unknown> = {};
    if (filters.site) q.site_id = filters.site; // checked against the sites below
    if (filters.status) {
      if ((VISIT_STATUSES as readonly string[]).includes(filters.status))
        q.status = filters.status as VisitsQuery['status'];
      else errors.push('Status: choose one of the list.');
    }
    if (filters.date) {
      const m = DATE.exec(filters.date);
      const day =
        m && org && !Number.isNaN(Date.parse(filters.date)) ? dayIn(filters.date, org.time_zone) : null;
      if (day) {
        q.expected_from = day.from.toISOString();
        q.expected_to = day.to.toISOString();
      } else errors.push('Day: give a date as YYYY-MM-DD.');
    }
    if (filters.name.length > 200) errors.push('Visitor name: at most 200 characters.');
    else if (filters.name) q.visitor = filters.name; // in the cursor's filters too
    if (typeof query.cursor === 'string' && query.cursor) q.cursor = query.cursor;
    // The sites (filter list, names) and the page are read at the same time: the list statement names the tenant,
    // so a site id that is not one of them finds nothing, and the page answers with the error instead. The page
    // is the /v1 list as stored rows (one cursor serves both), without the form /v1 reads for the answers.
    const [sites, page] = await Promise.all([
      this.organisations.listSites(tenant),
      errors.length
        ? null
        : this.visits.rowsPage(this.caller(t), q, { visitorName: filters.name || undefined }).catch((e) => {
            if (e instanceof ApiError && e.code === 'validation_failed') return 'stale' as const;
            throw e;
          }),
    ]);
    if (filters.site && !sites.some((s) => s.id === filters.site))
      errors.unshift('Site: choose one of the list.');
    const siteNames = new Map(sites.map((s) => [s.id, s.name]));
    const mode = t.livemode ? 'live' : 'test';
    const base = {
      title: 'Visits',
      filters,
      sites: sites.map((s) => ({ id: s.id, name: s.name })),
      statuses: VISIT_STATUSES.map((s) => ({ value: s, words: STATUS_WORDS[s] })),
      timeZone: org?.time_zone ?? null,
      mode,
    };
    if (errors.length || !page || page === 'stale')
      return {
        ...base,
        rows: [],
        pager: null,
        error: {
          message: errors.length
            ? errors.join(' ')
            : 'This page link is out of date (the filters changed); start again from the first page.',
          requestId: String(req.id),
        },
      };
    return {
      ...base,
      rows: page.data.map((v) => ({
        id: v.id,
        href: `/console/visits/${v.id}?mode=${mode}`,
        visitor: v.visitor_name ?? '(erased)',
        company: v.visitor_company,
        status: v.status,
        statusWords: STATUS_WORDS[v.status] ?? v.status,
        type: v.type,
        site: siteNames.get(v.site_id) ?? v.site_id,
        expected: v.expected_at ? when(v.expected_at) : '—',
        created: when(v.created_at),
      })),
      pager: pagerLinks('/console/visits', query, page),
    };
  }

  @Get(':visit_id')
  @ForBrowsers()
  @ConsolePage('console-visit')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('visit_id') id: string,
    @Query() query: Record<string, unknown>,
    @CsrfToken() csrf: string,
  ) {
    const caller = this.caller(t);
    const seesProtected = seesProtectedAnswers(a.role);
    const visit = await this.visits.get(caller, id, seesProtected ? 'console' : 'integration');
    const scopes = new Set(SCOPES.filter((s) => roleAllows(a.role, s)));
    // The host through the people domain's service (table ownership): a host deleted since shows its id only.
    const [form, sites, events, host] = await Promise.all([
      this.forms.current(caller.tenant, 'visit'),
      this.organisations.listSites(caller.tenant),
      this.events.about(caller.tenant, scopes, visit.id),
      this.people.find(caller.tenant, visit.host_id),
    ]);
    const seesDeliveries = roleAllows(a.role, 'webhooks:manage');
    const timeline = await Promise.all(
      events.map(async (e) => ({
        id: e.id,
        type: e.type,
        at: when(e.created_at),
        deliveries: seesDeliveries
          ? (await this.deliveries.ofEvent(e.id)).map((d) => ({
              id: d.id,
              endpoint: d.endpoint_id,
              status: d.status,
              attempts: d.attempts.map((x) => ({
                at: when(x.attempted_at),
                outcome: x.status_code ? `HTTP ${x.status_code}` : (x.error ?? 'no answer'),
                durationMs: x.duration_ms,
              })),
            }))
          : null,
      })),
    );
    const writes = roleAllows(a.role, 'visits:write');
    const mode = t.livemode ? 'live' : 'test';
    const action = (segment: string) => `/console/visits/${visit.id}/${segment}?mode=${mode}`;
    const site = sites.find((s) => s.id === visit.site_id);
    const notice = typeof query.notice === 'string' ? (NOTICES[query.notice] ?? null) : null;
    const errorCode = typeof query.error === 'string' ? query.error : null;
    const requestId =
      typeof query.request === 'string' && /^[\w-]{1,80}$/.test(query.request) ? query.request : null;
    const { answers, hidden } = answersOf(form, visit.custom_fields, seesProtected);
    return {
      title: `Visit of ${visit.visitor.name ?? '(erased visitor)'}`,
      csrf,
      notice,
      error: errorCode ? { message: ERRORS[errorCode] ?? 'That was not accepted.', requestId } : null,
      visit: {
        id: visit.id,
        visitor: visit.visitor,
        status: visit.status,
        statusWords: STATUS_WORDS[visit.status] ?? visit.status,
        type: visit.type,
        source: visit.source,
        site: site?.name ?? visit.site_id,
        gate: site?.gates.find((g) => g.id === visit.gate_id)?.name ?? null,
        host: { id: visit.host_id, name: host?.name ?? null },
        purpose: visit.purpose,
        expected: visit.expected_at ? when(visit.expected_at) : '—',
        until: visit.expected_until ? when(visit.expected_until) : null,
        checkedIn: visit.checked_in_at ? when(visit.checked_in_at) : null,
        checkedOut: visit.checked_out_at ? when(visit.checked_out_at) : null,
        cancelled: visit.cancelled_at ? when(visit.cancelled_at) : null,
        cancelReason: visit.cancel_reason,
        decision: visit.decision,
        bookingId: visit.booking_id,
        watchlist: visit.watchlist ?? null,
        created: when(visit.created_at),
      },
      pass: {
        channels: visit.pass.channels.join(', '),
        lastSent: visit.pass.last_sent_at ? when(visit.pass.last_sent_at) : null,
        resend: writes && RESENDABLE.includes(visit.status) ? action('resend-pass') : null,
      },
      actions: writes
        ? ACTIONS.filter(
            (x) =>
              VISIT_TRANSITIONS[x.action].from.includes(visit.status as never) &&
              !(x.action === 'cancel' && visit.booking_id),
          ).map((x) => ({
            ...x,
            url:
              x.action === 'cancel' ? `/console/visits/${visit.id}/cancel?mode=${mode}` : action(x.segment),
            confirm: x.action === 'cancel',
            reason: x.action === 'deny',
          }))
        : [],
      answers,
      hidden,
      timeline,
      seesDeliveries,
      outbox: mode === 'test' ? '/console/outbox' : null,
    };
  }

  /** The confirmation step of cancelling (works without JavaScript), with an optional reason. */
  @Get(':visit_id/cancel')
  @ConsoleAuth(...consoleRoles('/console/visits').filter((r) => roleAllows(r, 'visits:write')))
  @ConsolePage('console-visit-cancel')
  async confirmCancel(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('visit_id') id: string,
    @CsrfToken() csrf: string,
  ) {
    const visit = await this.visits.get(this.caller(t), id);
    if (!VISIT_TRANSITIONS.cancel.from.includes(visit.status as never) || visit.booking_id)
      throw new ApiError('invalid_state', `A visit in status ${visit.status} cannot be cancelled here.`);
    const mode = t.livemode ? 'live' : 'test';
    return {
      title: `Cancel the visit of ${visit.visitor.name ?? '(erased visitor)'}?`,
      action: `/console/visits/${visit.id}/cancel?mode=${mode}`,
      cancel: `/console/visits/${visit.id}?mode=${mode}`,
      csrf,
    };
  }

  @Post(':visit_id/:segment')
  @ConsoleAuth(...consoleRoles('/console/visits').filter((r) => roleAllows(r, 'visits:write')))
  @PostedForm()
  async act(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('visit_id') id: string,
    @Param('segment') segment: string,
    @Body() form: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
  ) {
    const found = ACTIONS.find((x) => x.segment === segment);
    if (!found && segment !== 'resend-pass') throw ApiError.notFound('The page');
    const caller = this.caller(t);
    const back = `/console/visits/${encodeURIComponent(id)}?mode=${t.livemode ? 'live' : 'test'}`;
    const reason = str(form.reason) || null;
    try {
      if (reason && reason.length > 500)
        throw ApiError.validation([{ location: 'body.reason', message: 'at most 500 characters' }]);
      const visit = found
        ? await this.visits.act(caller, id, found.action, { reason })
        : await this.visits.resendPass(caller, id);
      await this.audit.record({
        organisationId: t.organisationId,
        livemode: t.livemode,
        action: found ? `visit.${found.action}` : 'visit.pass_resent',
        actor: { type: 'console_account', id: a.id },
        target: { type: 'visit', id: visit.id },
        data: reason ? { reason } : {},
        request: req,
      });
      return { url: `${back}&notice=${segment}`, statusCode: 303 };
    } catch (e) {
      if (!(e instanceof ApiError) || !(e.code in ERRORS)) throw e;
      return {
        url: `${back}&error=${e.code}&request=${encodeURIComponent(String(req.id))}`,
        statusCode: 303,
      };
    }
  }
}
