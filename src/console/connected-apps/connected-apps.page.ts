import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { ConnectedAppsService } from '../../visitor/connected-apps/connected-apps.service';
import { SCOPE_TABLE, SCOPE_WORDS } from '../../visitor/platform/scope-words';
import { isScope, SCOPES } from '../../visitor/platform/scopes';
import { ClientsService } from '../../oauth/clients/clients.service';
import type { AppConnectionResponse } from '../../visitor/connected-apps/dto/connected-app.response';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { CheckCsrf } from '../../pages/page.decorator';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';

const SOURCES: Record<string, string> = {
  console: 'Registered in the console',
  dcr: 'Dynamic client registration',
  metadata_document: 'Client ID Metadata Document',
};
const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/**
 * One entry per person of an app's live connections (a person who authorized it several times, or in both
 * modes, is one row): the earliest connection, the latest use, the modes and the union of the scopes.
 */
export function perPerson(connections: AppConnectionResponse[]) {
  const by = new Map<
    string,
    { account_id: string; created_at: string; last_used_at: string | null; modes: string[]; scopes: string[] }
  >();
  for (const c of connections) {
    const p = by.get(c.account_id) ?? {
      account_id: c.account_id,
      created_at: c.created_at,
      last_used_at: null,
      modes: [],
      scopes: [],
    };
    if (c.created_at < p.created_at) p.created_at = c.created_at;
    if (c.last_used_at && (!p.last_used_at || c.last_used_at > p.last_used_at))
      p.last_used_at = c.last_used_at;
    const mode = c.livemode ? 'live' : 'test';
    if (!p.modes.includes(mode)) p.modes.push(mode);
    for (const s of c.scopes) if (!p.scopes.includes(s)) p.scopes.push(s);
    by.set(c.account_id, p);
  }
  return [...by.values()].map((p) => ({ ...p, modes: p.modes.sort() }));
}
/** Scopes in words, in the order of the scopes table, each marked when destructive. */
const inWords = (scopes: readonly string[]) =>
  SCOPES.filter((s) => scopes.includes(s)).map((s) => ({
    words: SCOPE_TABLE[s].words,
    destructive: SCOPE_TABLE[s].destructive,
  }));
const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : 'never');

/**
 * The console page of connected apps (`/console/apps`), for Owners and Admins: every app that asked to connect
 * or is connected, who asked and who connected it, when, with which scopes and mode, when last used; approve or
 * deny a pending app, revoke a connected one. The same service as the JSON endpoints of `/console/connected-apps`.
 */
@ApiExcludeController()
@Controller('console/apps')
@ConsoleAuth(...consoleRoles('/console/apps'))
export class ConsoleAppsPageController {
  constructor(
    private readonly apps: ConnectedAppsService,
    private readonly accounts: AccountsService,
    private readonly clients: ClientsService,
    private readonly organisations: OrganisationsService,
  ) {}

  @Get('new')
  @ConsolePage('console-app-new')
  registerForm(@CsrfToken() csrf: string) {
    return {
      title: 'Register an app',
      csrf,
      errors: [],
      values: { name: '', redirect_uris: '', type: 'confidential' },
    };
  }

  /** Registers the app and shows its client id, and a confidential app's secret, this once. */
  @Post('new')
  @ConsolePage('console-app-new')
  @CheckCsrf()
  async register(
    @CurrentAccount() a: ConsoleCaller,
    @CsrfToken() csrf: string,
    @Body() form: Record<string, string | undefined>,
  ) {
    const values = { name: form.name ?? '', redirect_uris: form.redirect_uris ?? '', type: form.type ?? '' };
    try {
      const registered = await this.clients.register(a, {
        name: values.name,
        redirect_uris: values.redirect_uris
          .split(/\r?\n/)
          .map((u) => u.trim())
          .filter(Boolean),
        type: values.type === 'public' ? 'public' : 'confidential',
      });
      return { title: 'App registered', csrf, registered, errors: [], values };
    } catch (e) {
      if (!(e instanceof ApiError) || (e.code !== 'validation_failed' && e.code !== 'plan_required')) throw e;
      const errors = e.errors.length
        ? e.errors.map((x) => `${x.location.replace(/^body\./, '').replace(/\.\d+$/, '')}: ${x.message}`)
        : [e.detail];
      return { title: 'Register an app', csrf, errors, values };
    }
  }

  @Get()
  @ConsolePage('console-apps')
  async show(@CurrentAccount() a: ConsoleCaller, @CsrfToken() csrf: string) {
    const apps = await this.apps.list(a.organisation_id);
    const ids = new Set(apps.flatMap((x) => [x.requested_by, ...x.connections.map((c) => c.account_id)]));
    const names = new Map<string, string>();
    for (const id of ids) names.set(id, (await this.accounts.findById(id))?.name ?? id);
    const developers = new Map<string, string | null>();
    for (const x of apps) developers.set(x.client_id, await this.developerOf(x.client_id, x.source));
    return {
      title: 'Connected apps',
      csrf,
      apps: apps.map((x) => ({
        clientId: x.client_id,
        name: x.name,
        source: SOURCES[x.source] ?? x.source,
        metadataUrl: x.source === 'metadata_document' ? x.client_id : null,
        developer: developers.get(x.client_id) ?? null,
        status: x.status,
        requestedBy: names.get(x.requested_by) ?? x.requested_by,
        requestedAt: when(x.requested_at),
        // what a pending request asks for, for the admin deciding it
        asks: x.status === 'pending' ? inWords(x.requested_scopes) : [],
        action: (decision: string) => `/console/apps/${encodeURIComponent(x.client_id)}/${decision}`,
        connections: perPerson(x.connections).map((c) => ({
          who: names.get(c.account_id) ?? c.account_id,
          since: when(c.created_at),
          lastUsed: when(c.last_used_at),
          mode: c.modes.join(' and '),
          scopes: c.scopes.map((s) => (isScope(s) ? SCOPE_WORDS[s] : s)),
        })),
      })),
    };
  }

  /**
   * Who builds the app, as far as its registration says: the organisation that registered it in the console (the
   * developer's organisation), the host of a Client ID Metadata Document, or the host of a dynamically registered
   * client's `client_uri`.
   */
  private async developerOf(clientId: string, source: string): Promise<string | null> {
    if (source === 'metadata_document') return hostOf(clientId);
    const client = await this.clients.find(clientId);
    if (!client) return null;
    if (client.organisation_id)
      return (await this.organisations.findOrganisation(client.organisation_id))?.name ?? null;
    const uri = client.metadata.client_uri;
    return typeof uri === 'string' ? hostOf(uri) : null;
  }

  /** The confirmation step of revoking (works without JavaScript): the button posts to the revoke action. */
  @Get(':client_id/revoke')
  @ConsolePage('console-confirm')
  async confirmRevoke(
    @CurrentAccount() a: ConsoleCaller,
    @CsrfToken() csrf: string,
    @Param('client_id') clientId: string,
  ) {
    const app = (await this.apps.list(a.organisation_id)).find((x) => x.client_id === clientId);
    if (!app || app.status !== 'approved') throw ApiError.notFound('The app');
    return {
      title: `Revoke ${app.name}?`,
      question: `Revoking ${app.name} stops every token it holds at once; people must connect it again to use it.`,
      action: `/console/apps/${encodeURIComponent(clientId)}/revoke`,
      confirmLabel: 'Revoke',
      cancel: '/console/apps',
      csrf,
    };
  }

  @Post(':client_id/:decision')
  @PostedForm()
  async decide(
    @CurrentAccount() a: ConsoleCaller,
    @Param('client_id') clientId: string,
    @Param('decision') decision: string,
  ) {
    const actor = { type: 'console_account' as const, id: a.id };
    if (decision === 'approve') await this.apps.decide(a.organisation_id, clientId, 'approved', actor);
    else if (decision === 'deny') await this.apps.decide(a.organisation_id, clientId, 'denied', actor);
    else if (decision === 'revoke') await this.apps.revoke(a.organisation_id, clientId, actor);
    else throw ApiError.notFound('The page');
    return { url: '/console/apps', statusCode: 303 };
  }
}
