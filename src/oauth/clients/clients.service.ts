import { Injectable } from '@nestjs/common';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId, randomBase62 } from '../../common/ids';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PLAN_RULES } from '../../visitor/platform/plans';
import { oauthIdHash } from '../../visitor/connected-apps/token-hash';
import { redirectUriProblem } from '../redirect-uris';
import { ClientRow, ClientsRepository } from './clients.repository';
import { OAuthAppResponse, RegisteredOAuthAppResponse, toOAuthAppResponse } from './dto/oauth-app.response';
import type { RegisterAppBody } from './dto/register-app.request';

/**
 * Apps an organisation registers in the console (Owners and Admins of Pro or Enterprise organisations, whose plan
 * has OAuth apps — the plans with the full live REST API): a client id, and for a confidential (server) app a
 * secret shown once and stored as a hash. Apps registered elsewhere (dynamic registration, metadata documents)
 * have no owning organisation.
 */
@Injectable()
export class ClientsService {
  constructor(
    private readonly repo: ClientsRepository,
    private readonly orgs: OrganisationsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async register(account: ConsoleCaller, body: RegisterAppBody): Promise<RegisteredOAuthAppResponse> {
    const org = await this.orgs.findOrganisation(account.organisation_id);
    if (!org) throw ApiError.notFound('The organisation');
    if (!PLAN_RULES[org.plan].live.includes('rest'))
      throw new ApiError(
        'plan_required',
        `Registering OAuth apps needs the Pro or Enterprise plan; this organisation is on ${org.plan}.`,
      );
    const errors: FieldError[] = [];
    if (body.name.trim() === '' || body.name.length > 100)
      errors.push({ location: 'body.name', message: 'is required (at most 100 characters)' });
    if (body.redirect_uris.length === 0 || body.redirect_uris.length > 10)
      errors.push({ location: 'body.redirect_uris', message: 'must list 1 to 10 redirect URIs' });
    body.redirect_uris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) errors.push({ location: `body.redirect_uris.${i}`, message: problem });
    });
    if (errors.length) throw ApiError.validation(errors);
    const confidential = body.type === 'confidential';
    const secret = confidential ? `svc_cs_${randomBase62(43)}` : null;
    const row: ClientRow = {
      client_id: newId('app'),
      name: body.name.trim(),
      source: 'console',
      organisation_id: account.organisation_id,
      redirect_uris: [...new Set(body.redirect_uris)],
      confidential,
      secret_hash: secret ? oauthIdHash(secret) : null,
      metadata: {},
      created_by: account.id,
      created_at: this.clock.now(),
      deleted_at: null,
    };
    await this.repo.upsert(row);
    await this.audit.record({
      organisationId: account.organisation_id,
      livemode: null,
      action: 'oauth_client.registered',
      actor: { type: 'console_account', id: account.id },
      target: { type: 'oauth_client', id: row.client_id },
      data: { name: row.name, type: body.type, redirect_uris: row.redirect_uris },
    });
    return { ...toOAuthAppResponse(row), client_secret: secret };
  }

  async list(account: ConsoleCaller): Promise<OAuthAppResponse[]> {
    return (await this.repo.listForOrganisation(account.organisation_id)).map(toOAuthAppResponse);
  }

  find(clientId: string): Promise<ClientRow | null> {
    return this.repo.find(clientId);
  }
}
