import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService } from '../../visitor/accounts/accounts.service';
import { SignInAttempts } from '../../visitor/accounts/sign-in-attempts';
import {
  approvesApps,
  AppInfo,
  ConnectedAppsService,
} from '../../visitor/connected-apps/connected-apps.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { DEFAULT_SCOPES, isScope, roleAllows, Scope } from '../../visitor/platform/scopes';
import { ClientsRepository } from '../clients/clients.repository';
import { OAuthServer } from '../oauth-server';
import { SCOPE_TABLE } from '../../visitor/platform/scope-words';

/** What the authorization page shows next, and with what. */
export type AuthorizeView =
  | { page: 'sign-in'; uid: string; app: AppView; email?: string; error?: string }
  | {
      page: 'consent';
      uid: string;
      app: AppView;
      organisation: string;
      account: { name: string; role: string };
      /** What the app asks for and the person's role allows; destructive ones are not ticked by default. */
      scopes: { name: Scope; words: string; destructive: boolean }[];
      firstConnection: boolean;
      error?: string;
    }
  | { page: 'waiting'; uid: string; app: AppView; organisation: string }
  | { page: 'denied'; uid: string; app: AppView; organisation: string };

export interface AppView extends AppInfo {
  /** Where the app came from, in words: registered in the console, dynamic registration, or its document URL. */
  origin: string;
  redirectUri: string;
}

interface Details {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string };
}

/**
 * The authorization page's steps over the engine's interaction (oidc-provider `interactionDetails` /
 * `interactionResult`): sign in with the console account; then, if the organisation has approved the app or the
 * person may approve it (Owner, Admin), the consent form (scopes in plain words, each can be unticked; live or
 * test data); a member asking for an app not yet approved waits for an admin; a denied app gets `access_denied`.
 */
@Injectable()
export class AuthorizationFlowService {
  constructor(
    private readonly server: OAuthServer,
    private readonly accounts: AccountsService,
    private readonly attempts: SignInAttempts,
    private readonly connected: ConnectedAppsService,
    private readonly orgs: OrganisationsService,
    private readonly clients: ClientsRepository,
  ) {}

  private async details(req: FastifyRequest, reply: FastifyReply): Promise<Details> {
    try {
      return (await this.server.provider.interactionDetails(req.raw, reply.raw)) as unknown as Details;
    } catch {
      throw new ApiError(
        'not_found',
        'This authorization request has expired or was already finished; start again from the app.',
      );
    }
  }

  private async app(d: Details): Promise<AppView> {
    const clientId = String(d.params.client_id);
    const redirectUri = String(d.params.redirect_uri ?? '');
    const client = await this.server.provider.Client.find(clientId);
    const name = client?.clientName ?? clientId;
    if (/^https:\/\//.test(clientId))
      return {
        clientId,
        name,
        source: 'metadata_document',
        origin: `Metadata document at ${clientId}`,
        redirectUri,
      };
    const row = await this.clients.find(clientId);
    const registeredBy = row?.organisation_id ? await this.orgs.findOrganisation(row.organisation_id) : null;
    return row?.source === 'console'
      ? {
          clientId,
          name,
          source: 'console',
          origin: `Registered in the console by ${registeredBy?.name ?? 'an organisation'}`,
          redirectUri,
        }
      : {
          clientId,
          name,
          source: 'dcr',
          origin: 'Registered itself (dynamic client registration)',
          redirectUri,
        };
  }

  /** The resources the request is for (RFC 8707): those it named, else /v1. */
  private resources(d: Details): string[] {
    const missing = d.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
    if (missing && Object.keys(missing).length) return Object.keys(missing);
    const named = ([] as unknown[]).concat(d.params.resource ?? []).map(String);
    return named.length ? [...new Set(named)] : [this.server.resource];
  }

  /**
   * The scopes the request asks for (the engine gives a request that names none `DEFAULT_SCOPES`), and of those
   * the ones the person's role allows: a scope the role forbids is neither shown nor granted.
   */
  private requestedScopes(d: Details, role: ConsoleCaller['role']): { asked: Scope[]; allowed: Scope[] } {
    const missing = d.prompt.details.missingResourceScopes as Record<string, string[]> | undefined;
    const named = missing
      ? Object.values(missing).flat()
      : String(d.params.scope ?? '')
          .split(' ')
          .filter(isScope);
    const asked = [...new Set(named.length ? named : DEFAULT_SCOPES)].filter(isScope);
    return { asked, allowed: asked.filter((s) => roleAllows(role, s)) };
  }

  /** The page for the interaction's current step. */
  async view(req: FastifyRequest, reply: FastifyReply, error?: string): Promise<AuthorizeView> {
    const d = await this.details(req, reply);
    const app = await this.app(d);
    if (d.prompt.name === 'login' || !d.session?.accountId)
      return { page: 'sign-in', uid: d.uid, app, ...(error ? { error } : {}) };
    const account = await this.accounts.findById(d.session.accountId);
    if (!account) return { page: 'sign-in', uid: d.uid, app };
    const org = await this.orgs.findOrganisation(account.organisation_id);
    const organisation = org?.name ?? account.organisation_id;
    const approval = await this.connected.approval(account.organisation_id, app.clientId);
    if (approval?.status === 'denied') return { page: 'denied', uid: d.uid, app, organisation };
    if (approval?.status !== 'approved' && !approvesApps(account.role)) {
      await this.connected.requestApproval(account, app, this.requestedScopes(d, account.role).asked);
      return { page: 'waiting', uid: d.uid, app, organisation };
    }
    return {
      page: 'consent',
      uid: d.uid,
      app,
      organisation,
      account: { name: account.name, role: account.role },
      scopes: this.requestedScopes(d, account.role).allowed.map((name) => ({ name, ...SCOPE_TABLE[name] })),
      firstConnection: approval?.status !== 'approved',
      ...(error ? { error } : {}),
    };
  }

  /**
   * Sign-in with the console account; returns where the browser goes next. The route's SignInLimitGuard admits the
   * attempt (per-address rate, lockout); a wrong password is counted here, as for the console.
   */
  async signIn(req: FastifyRequest, reply: FastifyReply, email: string, password: string): Promise<string> {
    await this.details(req, reply);
    const signed = await this.accounts.signIn(email, password, req).catch(async (e: unknown) => {
      throw e instanceof ApiError && e.code === 'unauthorized'
        ? await this.attempts.failed(email, req.ip, e)
        : e;
    });
    return this.server.provider.interactionResult(
      req.raw,
      reply.raw,
      { login: { accountId: signed.account.id } },
      { mergeWithLastSubmission: false },
    );
  }

  /** The person's answer on the consent form: the grant (with the scopes left ticked) or `access_denied`. */
  async consent(
    req: FastifyRequest,
    reply: FastifyReply,
    answer: { allow: boolean; scopes: string[]; mode: string },
  ): Promise<string> {
    const d = await this.details(req, reply);
    if (!answer.allow) return this.deny(req, reply, 'The person declined to connect the app.');
    const account = d.session?.accountId ? await this.accounts.findById(d.session.accountId) : null;
    if (!account) throw new ApiError('unauthorized', 'Sign in first.');
    // Only what was asked for, shown (the role allows it) and ticked is granted.
    const { asked, allowed } = this.requestedScopes(d, account.role);
    const ticked = new Set(answer.scopes);
    const scopes = allowed.filter((s) => ticked.has(s));
    if (scopes.length === 0)
      throw new ApiError('validation_failed', 'Tick at least one permission, or choose Deny.');
    const app = await this.app(d);
    const grant = new this.server.provider.Grant({ accountId: account.id, clientId: app.clientId });
    // What the person unticked or the role forbids is recorded as refused, so the engine issues the narrower
    // scope without asking again.
    const refused = asked.filter((s) => !scopes.includes(s));
    for (const resource of this.resources(d)) {
      grant.addResourceScope(resource, scopes.join(' '));
      if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    }
    const grantId = await grant.save();
    try {
      await this.connected.connect(account, app, { grantId, livemode: answer.mode !== 'test', scopes });
    } catch (e) {
      await grant.destroy();
      throw e;
    }
    return this.server.provider.interactionResult(
      req.raw,
      reply.raw,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  /** Ends the request with `access_denied` (sent to the app's redirect URI with its `state`). */
  async deny(req: FastifyRequest, reply: FastifyReply, description: string): Promise<string> {
    return this.server.provider.interactionResult(
      req.raw,
      reply.raw,
      { error: 'access_denied', error_description: description },
      { mergeWithLastSubmission: false },
    );
  }

  /** For the console's pending list: the account behind an id (null when gone). */
  account(id: string): Promise<ConsoleCaller | null> {
    return this.accounts.findById(id);
  }
}
