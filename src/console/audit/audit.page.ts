import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { AuditTrailService } from '../../visitor/audit/audit-trail.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { historyCutoff } from '../../visitor/platform/plans';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { formError } from '../keys/console-forms';

const PATH = '/console/audit';
const ACTOR_KINDS: Record<string, string> = {
  api_key: 'API keys',
  oauth_token: 'Connected apps',
  operator: 'Operators (command line)',
  system: 'Gatehouse itself',
};
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The audit trail as a console page (`/console/audit`, issue 31 page 11), for Owners and Admins: newest first,
 * within the plan's audit-trail period (live mode; test mode hides nothing), filtered by actor, action and date,
 * paged by cursor; each entry shows the request id and IP of the request that made it. The same
 * `AuditTrailService` as `GET /v1/audit-events`.
 */
@ApiExcludeController()
@Controller('console/audit')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleAuditPageController {
  constructor(
    private readonly trail: AuditTrailService,
    private readonly accounts: AccountsService,
    private readonly organisations: OrganisationsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ConsolePage('console-audit')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Req() req: FastifyRequest,
    @Query() query: Record<string, string | undefined>,
  ) {
    const filters = {
      actor: query.actor ?? '',
      action: query.action ?? '',
      from: query.from ?? '',
      to: query.to ?? '',
    };
    const org = await this.organisations.organisation(t.organisationId);
    const tenant = { organisationId: t.organisationId, livemode: t.livemode };
    const hiddenBefore = historyCutoff(
      'audit',
      org.plan,
      t.livemode,
      { ratePerMinute: null, historyDays: org.history_days, auditDays: org.audit_days },
      this.clock.now(),
    );
    const people = await this.accounts.team(t.organisationId, 100);
    let error: { message: string; requestId: string } | null = null;
    let page: Awaited<ReturnType<AuditTrailService['page']>> = {
      data: [],
      next_cursor: null,
      has_more: false,
    };
    try {
      const problems: { location: string; message: string }[] = [];
      if (filters.action && !/^[a-z_]+\.[a-z_]+$/.test(filters.action))
        problems.push({ location: 'query.action', message: 'must be an action such as api_key.created' });
      for (const k of ['from', 'to'] as const)
        if (filters[k] && !DAY.test(filters[k]))
          problems.push({ location: `query.${k}`, message: 'must be a date such as 2026-11-26' });
      const [type, id] = filters.actor.split(':');
      if (filters.actor && !(type === 'console_account' ? id : ACTOR_KINDS[type] && !id))
        problems.push({ location: 'query.actor', message: 'is not one of the listed actors' });
      if (problems.length) throw ApiError.validation(problems);
      page = await this.trail.page(
        { tenant, hiddenBefore },
        { ...filters, action: filters.action || undefined, cursor: query.cursor || undefined, limit: 25 },
        {
          actor: filters.actor ? { type, id } : undefined,
          from: filters.from ? new Date(`${filters.from}T00:00:00Z`) : undefined,
          // The whole day named by "to".
          until: filters.to ? new Date(Date.parse(`${filters.to}T00:00:00Z`) + 86_400_000) : undefined,
        },
      );
    } catch (e) {
      error = formError(e, req);
    }
    const names = new Map(people.map((p) => [p.id, p.name]));
    for (const e of page.data)
      if (e.actor.type === 'console_account' && e.actor.id && !names.has(e.actor.id))
        names.set(e.actor.id, (await this.accounts.findById(e.actor.id))?.name ?? e.actor.id);
    const actorWords = (x: { type: string; id: string | null }) =>
      x.type === 'console_account' && x.id
        ? names.get(x.id)!
        : `${ACTOR_KINDS[x.type] ?? x.type}${x.id ? ` (${x.id})` : ''}`;
    return {
      title: 'Audit trail',
      error,
      filters,
      period: hiddenBefore
        ? `Entries since ${when(hiddenBefore)}: your plan keeps the live-mode audit trail for this long.`
        : t.livemode
          ? 'Every entry: your plan keeps the whole audit trail.'
          : 'Test mode: every entry.',
      actors: [
        ...people.map((p) => ({ value: `console_account:${p.id}`, words: `${p.name} (${p.email})` })),
        ...Object.entries(ACTOR_KINDS).map(([value, words]) => ({ value, words })),
      ],
      entries: page.data.map((e) => ({
        id: e.id,
        at: when(e.created_at),
        action: e.action,
        actor: actorWords(e.actor),
        target: e.target ? `${e.target.type} ${e.target.id}` : '',
        mode: e.livemode === null ? 'both' : e.livemode ? 'live' : 'test',
        requestId: e.request_id,
        ip: e.ip,
        data: Object.keys(e.data).length ? JSON.stringify(e.data).slice(0, 300) : '',
      })),
      pager: pagerLinks(PATH, query, page),
      you: a.id,
    };
  }
}
