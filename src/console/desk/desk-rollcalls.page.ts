import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken, Page } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { roleAllows } from '../../visitor/platform/scopes';
import {
  MarkRollcallBody,
  ROLLCALL_STATUSES,
  StartRollcallBody,
} from '../../visitor/rollcalls/dto/rollcall.request';
import type { RollcallDetailResponse } from '../../visitor/rollcalls/dto/rollcall.response';
import { RollcallsService } from '../../visitor/rollcalls/rollcalls.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import {
  checked,
  DESK,
  cursorOf,
  deskAction,
  deskHeader,
  deskRoles,
  field,
  inMode,
  listOrError,
  listQuery,
  tenantOf,
} from './desk-view';

type Form = Record<string, string | undefined>;
const PATH = `${DESK}/roll-calls`;
const MARK_WORDS: Record<string, string> = {
  unaccounted: 'Not accounted for',
  safe: 'Safe',
  missing: 'Missing',
  needs_help: 'Needs help',
};
/** Seconds between two reads of a live roll call's progress (htmx; without JavaScript: the Refresh link). */
const POLL_SECONDS = 3;

/** A roll call's progress as the page and its live fragment show it. */
export function progressOf(
  t: ConsoleTenantOf,
  r: RollcallDetailResponse | Omit<RollcallDetailResponse, 'people'>,
) {
  const p = r.progress;
  return {
    id: r.id,
    active: r.status === 'active',
    total: p.total,
    accounted: p.total - p.unaccounted,
    counts: [
      { key: 'unaccounted', words: MARK_WORDS.unaccounted, n: p.unaccounted },
      { key: 'safe', words: MARK_WORDS.safe, n: p.safe },
      { key: 'missing', words: MARK_WORDS.missing, n: p.missing },
      { key: 'needs_help', words: MARK_WORDS.needs_help, n: p.needs_help },
    ],
    poll: r.status === 'active' ? inMode(t, `${PATH}/${r.id}/progress`) : null,
    pollEvery: `every ${POLL_SECONDS}s`,
    updated: when(r.updated_at),
  };
}

/**
 * Roll calls at the front desk (`/console/desk/roll-calls…`): start one at a site (everyone checked in and every
 * employee clocked in there is listed), follow its progress live (htmx polls a fragment; a Refresh link without
 * JavaScript), mark each person safe, missing or needing help, close it (confirmed), and print the list on a plain
 * page. Through RollcallsService, as `/v1/rollcalls` does; every change audited.
 */
@ApiExcludeController()
@Controller('console/desk/roll-calls')
@ConsoleAuth(...deskRoles('rollcalls:read'))
export class ConsoleDeskRollcallsPageController {
  constructor(
    private readonly rollcalls: RollcallsService,
    private readonly organisations: OrganisationsService,
    private readonly audit: AuditService,
  ) {}

  @Get()
  @ConsolePage('console-desk-rollcalls')
  async list(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const status = typeof query.status === 'string' && query.status ? query.status : '';
    const sites = await this.organisations.listSites(tenant);
    const siteNames = new Map(sites.map((s) => [s.id, s.name]));
    const { page, error } = await listOrError(req, () => {
      if (status && !(ROLLCALL_STATUSES as readonly string[]).includes(status))
        throw ApiError.validation([{ location: 'query.status', message: 'choose one of the list' }]);
      return this.rollcalls.page(tenant, {
        ...(status ? { status: status as 'active' | 'closed' } : {}),
        ...cursorOf(query),
      });
    });
    return {
      title: 'Roll calls',
      ...deskHeader(a, t, 'rollcalls', query, csrf),
      ...(error ? { error } : {}),
      status,
      writes: roleAllows(a.role, 'rollcalls:write'),
      action: inMode(t, PATH),
      sites: sites.map((s) => ({ id: s.id, name: s.name })),
      rows: (page?.data ?? []).map((r) => ({
        id: r.id,
        href: inMode(t, `${PATH}/${r.id}`),
        site: siteNames.get(r.site_id) ?? r.site_id,
        status: r.status,
        started: when(r.started_at),
        closed: r.closed_at ? when(r.closed_at) : null,
        accounted: `${r.progress.total - r.progress.unaccounted} of ${r.progress.total}`,
      })),
      pager: page ? pagerLinks(PATH, listQuery(query), page) : null,
    };
  }

  /** Starts a roll call at a site and opens it; a second active one at the site is refused (`conflict`). */
  @Post()
  @ConsoleAuth(...deskRoles('rollcalls:write'))
  @PostedForm()
  async start(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    return deskAction({ audit: this.audit, req, a, t }, inMode(t, PATH), async () => {
      const body = checked(StartRollcallBody, { site_id: field(form.site_id) });
      const r = await this.rollcalls.start(tenantOf(t), body);
      return {
        notice: 'started',
        to: inMode(t, `${PATH}/${r.id}`),
        action: 'rollcall.started',
        target: { type: 'rollcall', id: r.id },
        data: { site_id: r.site_id, total: r.progress.total },
      };
    });
  }

  @Get(':rollcall_id')
  @ConsolePage('console-desk-rollcall')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('rollcall_id') id: string,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, unknown>,
  ) {
    const r = await this.rollcalls.get(tenantOf(t), id);
    const site = await this.organisations.findSite(tenantOf(t), r.site_id);
    const marks = r.status === 'active' && roleAllows(a.role, 'rollcalls:write');
    return {
      title: `Roll call at ${site?.name ?? r.site_id}`,
      ...deskHeader(a, t, 'rollcalls', query, csrf),
      rollcall: {
        id: r.id,
        status: r.status,
        started: when(r.started_at),
        closed: r.closed_at ? when(r.closed_at) : null,
      },
      progress: progressOf(t, r),
      refresh: inMode(t, `${PATH}/${r.id}`),
      print: inMode(t, `${PATH}/${r.id}/print`),
      close: marks ? inMode(t, `${PATH}/${r.id}/close`) : null,
      list: inMode(t, PATH),
      people: r.people.map((p) => ({
        subject: p.subject_id,
        name: p.name ?? '(erased)',
        kind: p.kind === 'visitor' ? 'Visitor' : 'Employee',
        status: p.status,
        statusWords: MARK_WORDS[p.status] ?? p.status,
        note: p.note,
        marked: p.marked_at ? when(p.marked_at) : null,
        visit: p.visit_id ? inMode(t, `/console/visits/${p.visit_id}`) : null,
      })),
      mark: marks ? inMode(t, `${PATH}/${r.id}/marks`) : null,
      marks: (['safe', 'missing', 'needs_help'] as const).map((m) => ({ value: m, words: MARK_WORDS[m] })),
    };
  }

  /** The live progress alone (an HTML fragment htmx swaps in; the page itself has the same block). */
  @Get(':rollcall_id/progress')
  @Page('console-desk-rollcall-progress')
  async progress(@ConsoleTenant() t: ConsoleTenantOf, @Param('rollcall_id') id: string) {
    return { progress: progressOf(t, await this.rollcalls.get(tenantOf(t), id)) };
  }

  /** The list to print (a plain page without the console's navigation; print CSS). */
  @Get(':rollcall_id/print')
  @Page('console-desk-rollcall-print')
  async print(@ConsoleTenant() t: ConsoleTenantOf, @Param('rollcall_id') id: string) {
    const r = await this.rollcalls.get(tenantOf(t), id);
    const site = await this.organisations.findSite(tenantOf(t), r.site_id);
    return {
      title: `Roll call at ${site?.name ?? r.site_id}, started ${when(r.started_at)}`,
      organisation: t.organisationName,
      test: !t.livemode,
      status: r.status === 'active' ? 'In progress' : `Closed ${when(r.closed_at)}`,
      printed: when(new Date()),
      progress: progressOf(t, r),
      back: inMode(t, `${PATH}/${r.id}`),
      people: r.people.map((p) => ({
        name: p.name ?? '(erased)',
        kind: p.kind === 'visitor' ? 'Visitor' : 'Employee',
        statusWords: p.status === 'unaccounted' ? '' : MARK_WORDS[p.status],
        note: p.note ?? '',
      })),
    };
  }

  /** Marks one person (again, while active: the latest mark counts). */
  @Post(':rollcall_id/marks')
  @ConsoleAuth(...deskRoles('rollcalls:write'))
  @PostedForm()
  async markPerson(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('rollcall_id') id: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const back = inMode(t, `${PATH}/${encodeURIComponent(id)}`);
    return deskAction({ audit: this.audit, req, a, t }, back, async () => {
      const body = checked(MarkRollcallBody, {
        subject_id: field(form.subject_id),
        status: field(form.status),
        note: field(form.note),
      });
      const r = await this.rollcalls.mark(tenantOf(t), id, body);
      return {
        notice: 'marked',
        to: `${back}#person-${body.subject_id}`,
        action: 'rollcall.person_marked',
        target: { type: 'rollcall', id: r.id },
        data: { subject_id: body.subject_id, status: body.status },
      };
    });
  }

  /** The confirmation step of closing a roll call. */
  @Get(':rollcall_id/close')
  @ConsoleAuth(...deskRoles('rollcalls:write'))
  @ConsolePage('console-confirm')
  async confirmClose(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('rollcall_id') id: string,
    @CsrfToken() csrf: string,
  ) {
    const r = await this.rollcalls.get(tenantOf(t), id);
    if (r.status !== 'active') throw new ApiError('invalid_state', `Roll call ${id} is already closed.`);
    const left = r.progress.unaccounted;
    return {
      title: 'Close the roll call?',
      question: `${left} of ${r.progress.total} ${left === 1 ? 'person is' : 'people are'} not accounted for. A closed roll call cannot be marked any more.`,
      action: inMode(t, `${PATH}/${r.id}/close`),
      confirmLabel: 'Close the roll call',
      cancel: inMode(t, `${PATH}/${r.id}`),
      csrf,
    };
  }

  @Post(':rollcall_id/close')
  @ConsoleAuth(...deskRoles('rollcalls:write'))
  @PostedForm()
  async close(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('rollcall_id') id: string,
    @Req() req: FastifyRequest,
  ) {
    const back = inMode(t, `${PATH}/${encodeURIComponent(id)}`);
    return deskAction({ audit: this.audit, req, a, t }, back, async () => {
      const r = await this.rollcalls.close(tenantOf(t), id, {});
      return {
        notice: 'closed',
        action: 'rollcall.closed',
        target: { type: 'rollcall', id: r.id },
        data: { progress: r.progress },
      };
    });
  }
}
