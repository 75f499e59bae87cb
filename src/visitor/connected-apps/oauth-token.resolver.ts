import { Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../../common/clock';
import { protectedResourceOf, resourceUrl } from '../../common/errors/bearer-challenge';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { AccountsService } from '../accounts/accounts.service';
import { OAuthModelsService } from '../../oauth/oauth-models.service';
import { AuditService } from '../audit/audit.service';
import type { Credential, CredentialResolver } from '../platform/credential';
import { isScope } from '../platform/scopes';
import { ConnectedAppsRepository } from './connected-apps.repository';
import { ACCESS_TOKEN_PREFIX, oauthIdHash } from './token-hash';

/**
 * The resource (RFC 8707) a request to a protected resource expects its access token to be issued for: the surface
 * being called — `{BASE_URL}/v1` under /v1, `{BASE_URL}/mcp` under /mcp — or null under neither.
 */
export function resourceOf(baseUrl: string, req: Pick<FastifyRequest, 'url'>): string | null {
  const resource = protectedResourceOf(req.url);
  return resource ? resourceUrl(baseUrl, resource) : null;
}

/**
 * CredentialResolver for OAuth access tokens (`svc_at_…`) in `Authorization: Bearer`: the token (found by its hash)
 * must be unexpired, issued for the resource the request is under (`resourceOf`: a /v1 token is not valid at /mcp,
 * nor an /mcp token at /v1), and belong to a connection the organisation
 * has not revoked; the person it acts for must still have a console account there, whose role (today's, not the
 * one at consent) limits what the token's scopes allow. Nothing is cached: a revocation holds on the next call.
 */
@Injectable()
export class OAuthTokenResolver implements CredentialResolver {
  readonly prefixes = [ACCESS_TOKEN_PREFIX];
  private readonly logger = new Logger('OAuthTokens');
  private readonly baseUrl: string;
  /** When each connection's use was last written (kept to the minute; the first use each day is audited). */
  private readonly lastTouch = new Map<string, number>();

  constructor(
    private readonly repo: ConnectedAppsRepository,
    private readonly models: OAuthModelsService,
    private readonly accounts: AccountsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    this.baseUrl = config.baseUrl;
  }

  async resolve(token: string, req?: FastifyRequest): Promise<Credential | 'revoked' | null> {
    const expected = req ? resourceOf(this.baseUrl, req) : null;
    if (!expected) return null;
    const access = await this.models.accessToken(oauthIdHash(token));
    // A token for another resource is not valid here: its connection is not read.
    if (!access || access.aud !== expected) return null;
    const t = await this.repo.connection(access.grant_id);
    if (!t) return null;
    const now = this.clock.now();
    if (t.revoked_at || (access.expires_at && new Date(access.expires_at) <= now)) return 'revoked';
    const who = await this.accounts.actingAccess(t.account_id, t.organisation_id);
    if (!who || who.disabled_at) return 'revoked';
    this.noteUse(t.grant_id, t.organisation_id, t.livemode, t.client_id, t.account_id, now, req);
    return {
      kind: 'oauth_token',
      id: t.grant_id,
      livemode: t.livemode,
      publishable: false,
      scopes: new Set((access.scope ?? '').split(' ').filter(isScope)),
      actingRole: who.role,
      actingAccountId: t.account_id,
      organisation: {
        id: t.organisation_id,
        plan: who.plan,
        overrides: {
          ratePerMinute: who.rate_limit_per_minute,
          historyDays: who.history_days,
          auditDays: who.audit_days,
        },
        ipAllowList: who.ip_allow_list,
        referenceVersion: who.reference_version,
      },
    };
  }

  /** Off the request path: `last_used_at` to the minute, and the first use each day in the audit trail. */
  private noteUse(
    grantId: string,
    organisationId: string,
    livemode: boolean,
    clientId: string,
    accountId: string,
    now: Date,
    req?: FastifyRequest,
  ): void {
    const last = this.lastTouch.get(grantId);
    if (last !== undefined && now.getTime() - last < 60_000) return;
    this.lastTouch.set(grantId, now.getTime());
    void (async () => {
      if (await this.repo.touch(grantId, now))
        await this.audit.record({
          organisationId,
          livemode,
          action: 'oauth_token.used',
          actor: { type: 'oauth_token', id: grantId },
          target: { type: 'oauth_client', id: clientId },
          data: { client_id: clientId, account_id: accountId, day: now.toISOString().slice(0, 10) },
          request: req,
        });
    })().catch((e: Error) => this.logger.warn(`could not record use of ${grantId}: ${e.message}`));
  }
}
