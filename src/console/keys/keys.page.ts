import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { ApiKeysService, toApiKeyResponse } from '../../visitor/api-keys/api-keys.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { PLAN_RULES } from '../../visitor/platform/plans';
import { SCOPE_WORDS } from '../../visitor/platform/scope-words';
import { PUBLISHABLE_SCOPES, SCOPES } from '../../visitor/platform/scopes';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { formError, nameOfActor } from './console-forms';

const PATH = '/console/keys';
const NOTICES: Record<string, string> = {
  revoked: 'The key is revoked: every request with it is now unauthorized.',
  'allow-list': 'The IP allow-list is saved.',
};

/** The scopes grouped by area (the part before the colon), in the spec's order, for the creation form. */
export const SCOPE_GROUPS = [...new Set(SCOPES.map((s) => s.split(':')[0]))].map((area) => ({
  area: area[0].toUpperCase() + area.slice(1),
  scopes: SCOPES.filter((s) => s.split(':')[0] === area).map((s) => ({
    scope: s,
    words: SCOPE_WORDS[s],
    field: `scope_${s.replace(':', '_')}`,
    publishable: PUBLISHABLE_SCOPES.includes(s),
  })),
}));

interface KeyForm {
  name: string;
  kind: string;
  mode: string;
  expires: string;
  scopes: string[];
}

/**
 * API keys as a console page (`/console/keys`, issue 31 page 2), for Owners and Admins: the list (both modes),
 * creating a key (shown in full this once, with a copy button), revoking after a confirmation, and on Enterprise
 * the organisation's IP allow-list. The same `ApiKeysService` as `/console/api-keys` and the /v1 guard chain.
 */
@ApiExcludeController()
@Controller('console/keys')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleKeysPageController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly accounts: AccountsService,
    private readonly organisations: OrganisationsService,
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Get()
  @ConsolePage('console-keys')
  async show(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, string | undefined>,
  ) {
    const blank: KeyForm = {
      name: '',
      kind: 'secret',
      mode: t.livemode ? 'live' : 'test',
      expires: '',
      scopes: [],
    };
    return this.view(t, csrf, query, {
      notice: query.notice ? (NOTICES[query.notice] ?? null) : null,
      values: blank,
    });
  }

  /** Creates the key and shows it in full, this once; a bad form comes back with its values and the error. */
  @Post()
  @ConsolePage('console-keys')
  @CheckCsrf()
  async create(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Req() req: FastifyRequest,
    @Body() form: Record<string, string | undefined>,
  ) {
    const values: KeyForm = {
      name: form.name ?? '',
      kind: form.kind ?? '',
      mode: form.mode ?? '',
      expires: form.expires ?? '',
      scopes: SCOPES.filter((s) => form[`scope_${s.replace(':', '_')}`] !== undefined),
    };
    try {
      if (values.expires !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(values.expires))
        throw ApiError.validation([
          { location: 'body.expires', message: 'must be a date such as 2027-01-31' },
        ]);
      const created = await this.keys.create(
        a.organisation_id,
        {
          name: values.name,
          kind: values.kind,
          mode: values.mode,
          scopes: values.scopes,
          expires_at: values.expires ? `${values.expires}T00:00:00Z` : null,
        },
        { type: 'console_account', id: a.id },
        'body',
        req,
      );
      return this.view(
        t,
        csrf,
        {},
        {
          created: { key: created.key, name: created.name, mode: created.livemode ? 'live' : 'test' },
          notice: `The key ${created.name} is created. Copy it now: it is shown only this once.`,
          values: { ...values, name: '', scopes: [] },
        },
      );
    } catch (e) {
      return this.view(t, csrf, {}, { error: formError(e, req), values });
    }
  }

  /** The confirmation step of revoking (works without JavaScript). */
  @Get(':key_id/revoke')
  @ConsolePage('console-confirm')
  async confirmRevoke(
    @CurrentAccount() a: ConsoleCaller,
    @CsrfToken() csrf: string,
    @Param('key_id') id: string,
  ) {
    const key = await this.keys.get(a.organisation_id, id);
    if (!key || key.revoked_at) throw ApiError.notFound('The API key');
    return {
      title: `Revoke the key ${key.name}?`,
      question: `Every request with ${key.redacted} will be unauthorized from now on. This cannot be undone; create a new key to replace it.`,
      action: `${PATH}/${encodeURIComponent(id)}/revoke`,
      confirmLabel: 'Revoke key',
      cancel: PATH,
      csrf,
    };
  }

  @Post(':key_id/revoke')
  @PostedForm()
  async revoke(@CurrentAccount() a: ConsoleCaller, @Req() req: FastifyRequest, @Param('key_id') id: string) {
    await this.keys.revoke(a.organisation_id, id, { type: 'console_account', id: a.id }, req);
    return { url: `${PATH}?notice=revoked`, statusCode: 303 };
  }

  /** Enterprise: the organisation's IP allow-list (one address or CIDR range a line; empty: every address). */
  @Post('ip-allow-list')
  @ConsolePage('console-keys')
  @CheckCsrf()
  async saveAllowList(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Req() req: FastifyRequest,
    @Body() form: Record<string, string | undefined>,
  ) {
    const blank: KeyForm = {
      name: '',
      kind: 'secret',
      mode: t.livemode ? 'live' : 'test',
      expires: '',
      scopes: [],
    };
    try {
      if (!PLAN_RULES[t.plan].ipAllowList)
        throw new ApiError('plan_required', 'IP allow-lists need the Enterprise plan.');
      const list = (form.ip_allow_list ?? '')
        .split(/[\s,]+/)
        .map((x) => x.trim())
        .filter(Boolean);
      await this.organisations.update(
        a.organisation_id,
        { ip_allow_list: list },
        { type: 'console_account', id: a.id },
        req,
      );
      return this.view(t, csrf, {}, { notice: NOTICES['allow-list'], values: blank });
    } catch (e) {
      return this.view(
        t,
        csrf,
        {},
        { error: formError(e, req), values: blank, allowListText: form.ip_allow_list },
      );
    }
  }

  private async view(
    t: ConsoleTenantOf,
    csrf: string,
    query: Record<string, string | undefined>,
    extra: {
      values: KeyForm;
      notice?: string | null;
      error?: { message: string; requestId: string } | null;
      created?: { key: string; name: string; mode: string };
      allowListText?: string;
    },
  ) {
    // Keys are organisation-wide (each carries its mode); the cursor is bound to the organisation.
    const tenant = { organisationId: t.organisationId, livemode: true };
    const page = await this.cursors.codec.createdPage(
      'console-keys-page',
      tenant,
      { cursor: query.cursor || undefined, limit: 25 },
      (limit, after) => this.keys.list(t.organisationId, limit, after),
      (r) => ({ ...toApiKeyResponse(r), created_by: r.created_by }),
    );
    const names = new Map<string, string>();
    for (const k of page.data)
      if (!names.has(k.created_by)) names.set(k.created_by, await nameOfActor(k.created_by, this.accounts));
    const org = await this.organisations.organisation(t.organisationId);
    const enterprise = PLAN_RULES[org.plan].ipAllowList;
    return {
      title: 'API keys',
      csrf,
      groups: SCOPE_GROUPS,
      values: extra.values,
      created: extra.created ?? null,
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      allowList: enterprise ? (extra.allowListText ?? org.ip_allow_list.join('\n')) : null,
      keys: page.data.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.redacted,
        kind: k.kind,
        mode: k.livemode ? 'live' : 'test',
        scopes: k.scopes.join(', '),
        createdBy: names.get(k.created_by) ?? k.created_by,
        createdAt: when(k.created_at),
        lastUsed: when(k.last_used_at),
        expires: k.expires_at ? when(k.expires_at) : 'never',
        revoked: k.revoked_at ? when(k.revoked_at) : null,
        revoke: `${PATH}/${encodeURIComponent(k.id)}/revoke`,
      })),
      pager: pagerLinks(PATH, query, page),
    };
  }
}
