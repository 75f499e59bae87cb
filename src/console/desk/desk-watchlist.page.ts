import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { CreateWatchlistEntryBody, SEVERITIES } from '../../visitor/watchlist/dto/watchlist.request';
import type { RecentMatchResponse } from '../../visitor/watchlist/dto/watchlist.response';
import { WatchlistService } from '../../visitor/watchlist/watchlist.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import {
  checked,
  DESK,
  cursorOf,
  deskAction,
  deskAudit,
  deskHeader,
  deskRoles,
  field,
  inMode,
  listOrError,
  listQuery,
  submitted,
  tenantOf,
} from './desk-view';

type Form = Record<string, string | undefined>;
const PATH = `${DESK}/watchlist`;
/** Matches shown on the watchlist page; the rest are on the matches page. */
const RECENT = 5;
const FIELD_WORDS: Record<string, string> = { phone: 'Phone', email: 'E-mail', name: 'Name' };
const EMPTY = { name: '', aliases: '', phone: '', email: '', company: '', reason: '', severity: 'medium' };

/** A match as the pages show it: its explanation, the entry's name, never the compared values. */
const matchRow = (t: ConsoleTenantOf) => (m: RecentMatchResponse) => ({
  id: m.id,
  at: when(m.matched_at),
  entry: m.entry_name ?? 'a removed entry',
  severity: m.severity,
  field: FIELD_WORDS[m.field] ?? m.field,
  score: m.score.toFixed(2),
  explanation: m.explanation,
  visit: inMode(t, `/console/visits/${m.visit_id}`),
});

/**
 * The watchlist at the front desk (`/console/desk/watchlist`), for Owners and Admins only (the roles that may
 * change it; a member sees no watchlist link and every route here refuses them): add an entry (name, other names,
 * phone, e-mail, company, reason, severity), list and remove entries (confirmed), and the recent matches with the
 * explanation of each (the entry's names and the rule that matched; never the visitor's compared value), each
 * linked to its visit. Through WatchlistService, as `/v1/watchlist-entries` does; every change audited.
 */
@ApiExcludeController()
@Controller('console/desk/watchlist')
@ConsoleAuth(...deskRoles('watchlist:write'))
export class ConsoleDeskWatchlistPageController {
  constructor(
    private readonly watchlist: WatchlistService,
    private readonly audit: AuditService,
  ) {}

  private async view(
    a: ConsoleCaller,
    t: ConsoleTenantOf,
    csrf: string,
    query: Record<string, unknown>,
    req: FastifyRequest,
    extra: Record<string, unknown> = {},
  ) {
    const tenant = tenantOf(t);
    const [{ page, error }, matches] = await Promise.all([
      listOrError(req, () => this.watchlist.page(tenant, cursorOf(query))),
      this.watchlist.recentMatches(tenant, { limit: RECENT }),
    ]);
    return {
      title: 'Watchlist',
      ...deskHeader(a, t, 'watchlist', query, csrf),
      ...(error ? { error } : {}),
      action: inMode(t, PATH),
      severities: SEVERITIES,
      values: EMPTY,
      errors: [] as string[],
      matches: matches.data.map(matchRow(t)),
      allMatches: matches.has_more ? inMode(t, `${PATH}/matches`) : null,
      entries: (page?.data ?? []).map((e) => ({
        id: e.id,
        name: e.name,
        aliases: e.aliases.join(', '),
        phone: e.phone,
        email: e.email,
        company: e.company,
        reason: e.reason,
        severity: e.severity,
        active: e.active,
        expires: e.expires_at ? when(e.expires_at) : null,
        added: when(e.created_at),
        remove: inMode(t, `${PATH}/${e.id}/remove`),
      })),
      pager: page ? pagerLinks(PATH, listQuery(query), page) : null,
      ...extra,
    };
  }

  @Get()
  @ConsolePage('console-desk-watchlist')
  show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    return this.view(a, t, csrf, query, req);
  }

  /** Adds an entry; visits are screened against it from now on. Problems re-render the form with what was typed. */
  @Post()
  @ConsolePage('console-desk-watchlist')
  @CheckCsrf()
  async add(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const values = { ...EMPTY };
    for (const k of Object.keys(EMPTY) as (keyof typeof EMPTY)[]) values[k] = (form[k] ?? '').trim();
    return submitted(
      req,
      'The entry was not added.',
      async () => {
        const aliases = values.aliases
          .split(/[,\n]/)
          .map((x) => x.trim())
          .filter(Boolean);
        const body = checked(CreateWatchlistEntryBody, {
          name: values.name,
          ...(aliases.length ? { aliases } : {}),
          phone: field(values.phone),
          email: field(values.email),
          company: field(values.company),
          reason: values.reason,
          severity: values.severity,
        });
        const e = await this.watchlist.add(tenantOf(t), a.id, body);
        await deskAudit(this.audit, req, a, t, {
          action: 'watchlist_entry.added',
          target: { type: 'watchlist_entry', id: e.id },
          data: { severity: e.severity },
        });
        return this.view(a, t, csrf, {}, req, { notice: `${e.name} added to the watchlist.` });
      },
      (refusal) => this.view(a, t, csrf, {}, req, { values, ...refusal }),
    );
  }

  /** Recent matches, newest first, paged by cursor. */
  @Get('matches')
  @ConsolePage('console-desk-matches')
  async matches(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    const { page, error } = await listOrError(req, () =>
      this.watchlist.recentMatches(tenantOf(t), cursorOf(query)),
    );
    return {
      title: 'Watchlist matches',
      ...deskHeader(a, t, 'watchlist', query),
      ...(error ? { error } : {}),
      back: inMode(t, PATH),
      matches: (page?.data ?? []).map(matchRow(t)),
      pager: page ? pagerLinks(`${PATH}/matches`, listQuery(query), page) : null,
    };
  }

  /** The confirmation step of removing an entry. */
  @Get(':watch_id/remove')
  @ConsolePage('console-confirm')
  async confirmRemove(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('watch_id') id: string,
    @CsrfToken() csrf: string,
  ) {
    const e = await this.watchlist.get(tenantOf(t), id);
    return {
      title: `Remove ${e.name} from the watchlist?`,
      question: 'Visits are no longer screened against this entry. Matches already recorded are kept.',
      action: inMode(t, `${PATH}/${e.id}/remove`),
      confirmLabel: 'Remove the entry',
      cancel: inMode(t, PATH),
      csrf,
    };
  }

  @Post(':watch_id/remove')
  @PostedForm()
  async remove(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('watch_id') id: string,
    @Req() req: FastifyRequest,
  ) {
    return deskAction({ audit: this.audit, req, a, t }, inMode(t, PATH), async () => {
      await this.watchlist.remove(tenantOf(t), id);
      return {
        notice: 'removed',
        action: 'watchlist_entry.removed',
        target: { type: 'watchlist_entry', id },
      };
    });
  }
}
