import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { Transactions, UnitOfWork } from '../../database/unit-of-work';
import { OAuthModelsService } from '../../oauth/oauth-models.service';
import type { ConsoleCaller } from '../accounts/console-caller';
import { Actor, AuditService } from '../audit/audit.service';
import type { Role } from '../platform/scopes';
import {
  ApprovalRow,
  ApprovalStatus,
  ClientSource,
  ConnectedAppsRepository,
} from './connected-apps.repository';
import { ConnectedAppResponse, toConnectedAppResponse } from './dto/connected-app.response';

/** The app as the authorization page shows it. */
export interface AppInfo {
  clientId: string;
  name: string;
  source: ClientSource;
}

export const approvesApps = (role: Role) => role === 'owner' || role === 'admin';

/**
 * Which apps an organisation lets in and who connected them. The first connection of an app to an organisation
 * needs an Owner or Admin: a member's request waits (`pending`) until one approves or denies it in the console;
 * an Owner or Admin connecting it approves it on the spot. An app the organisation has not approved gets no grant,
 * so no token. Revoking an app ends every connection of it at once (its tokens are deleted) and sets it back to
 * `denied`, so it needs an admin's approval again.
 */
@Injectable()
export class ConnectedAppsService {
  constructor(
    private readonly repo: ConnectedAppsRepository,
    private readonly models: OAuthModelsService,
    private readonly audit: AuditService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  /**
   * The engine revoked a grant (a code or refresh token presented twice, RFC 9700 §4.14.2): the connection it
   * belonged to ends too, so the console no longer lists it as connected.
   */
  async grantRevoked(grantId: string): Promise<void> {
    await this.repo.revokeGrantConnection(grantId, this.clock.now());
  }

  /**
   * Marks every live connection of the app revoked and deletes what the engine stored under their grants (grant,
   * codes, access and refresh tokens), in `uow`: the next call with any of its tokens is `unauthorized`. Returns
   * the grant ids.
   */
  private async endConnections(
    uow: UnitOfWork,
    organisationId: string,
    clientId: string,
    at: Date,
  ): Promise<string[]> {
    const grants = await this.repo.revokeClient(uow.manager, organisationId, clientId, at);
    await this.models.revokeGrants(uow, grants);
    return grants;
  }

  approval(organisationId: string, clientId: string): Promise<ApprovalRow | null> {
    return this.repo.approval(organisationId, clientId);
  }

  /**
   * A member asks for the app with these scopes: a pending request admins see, with every scope asked for while it
   * waits (an existing decision is kept). Audited once, when the request is made, not on every later view of the
   * waiting page.
   */
  async requestApproval(
    account: ConsoleCaller,
    app: AppInfo,
    scopes: readonly string[],
  ): Promise<ApprovalRow> {
    return this.tx.run(async (uow) => {
      const { row, inserted } = await this.repo.requestApproval(uow.manager, {
        organisation_id: account.organisation_id,
        client_id: app.clientId,
        client_name: app.name,
        client_source: app.source,
        status: 'pending',
        requested_by: account.id,
        requested_at: this.clock.now(),
        decided_by: null,
        decided_at: null,
        requested_scopes: [...scopes],
      });
      if (inserted && row.status === 'pending')
        await this.audit.record(
          {
            organisationId: account.organisation_id,
            livemode: null,
            action: 'oauth_app.approval_requested',
            actor: { type: 'console_account', id: account.id },
            target: { type: 'oauth_client', id: app.clientId },
            data: { name: app.name, source: app.source, scopes: row.requested_scopes },
          },
          uow.manager,
        );
      return row;
    });
  }

  /**
   * Records the connection a person made (the grant the authorization server saved) in their organisation. An
   * Owner or Admin connecting an app not yet approved approves it; anyone else needs it approved already.
   */
  async connect(
    account: ConsoleCaller,
    app: AppInfo,
    grant: { grantId: string; livemode: boolean; scopes: string[] },
  ): Promise<void> {
    await this.tx.run(async (uow) => {
      const now = this.clock.now();
      const approval = await this.repo.approval(account.organisation_id, app.clientId, uow.manager);
      if (approval?.status !== 'approved') {
        if (!approvesApps(account.role))
          throw new ApiError(
            'forbidden',
            'An Owner or Admin must approve this app for the organisation first.',
          );
        await this.repo.requestApproval(uow.manager, {
          organisation_id: account.organisation_id,
          client_id: app.clientId,
          client_name: app.name,
          client_source: app.source,
          status: 'approved',
          requested_by: account.id,
          requested_at: now,
          decided_by: account.id,
          decided_at: now,
          requested_scopes: grant.scopes,
        });
        await this.repo.decide(
          uow.manager,
          account.organisation_id,
          app.clientId,
          'approved',
          account.id,
          now,
        );
      }
      await this.repo.insertConnection(uow.manager, {
        grant_id: grant.grantId,
        organisation_id: account.organisation_id,
        client_id: app.clientId,
        account_id: account.id,
        livemode: grant.livemode,
        scopes: grant.scopes,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      });
      await this.audit.record(
        {
          organisationId: account.organisation_id,
          livemode: grant.livemode,
          action: 'oauth_app.connected',
          actor: { type: 'console_account', id: account.id },
          target: { type: 'oauth_client', id: app.clientId },
          data: { name: app.name, source: app.source, scopes: grant.scopes, grant_id: grant.grantId },
        },
        uow.manager,
      );
    });
  }

  /** An Owner or Admin approves or denies an app that asked to connect. */
  async decide(
    organisationId: string,
    clientId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    actor: Actor,
  ): Promise<ConnectedAppResponse> {
    return this.tx.run(async (uow) => {
      const row = await this.repo.decide(
        uow.manager,
        organisationId,
        clientId,
        status,
        actor.id ?? actor.type,
        this.clock.now(),
      );
      if (!row) throw ApiError.notFound('The connected app');
      // Denying an app that was connected also ends its connections: a denied app holds no token.
      const ended =
        status === 'denied' ? await this.endConnections(uow, organisationId, clientId, row.decided_at!) : [];
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: status === 'approved' ? 'oauth_app.approved' : 'oauth_app.denied',
          actor,
          target: { type: 'oauth_client', id: clientId },
          data: { name: row.client_name, ...(ended.length ? { grants_revoked: ended.length } : {}) },
        },
        uow.manager,
      );
      const connections =
        status === 'denied'
          ? []
          : (await this.repo.connections(organisationId, uow.manager)).filter(
              (c) => c.client_id === clientId,
            );
      return toConnectedAppResponse(row, connections);
    });
  }

  /** Every app that asked to connect or is connected, with its live connections (who, when, scopes, last use). */
  async list(organisationId: string): Promise<ConnectedAppResponse[]> {
    const [approvals, connections] = await Promise.all([
      this.repo.approvals(organisationId),
      this.repo.connections(organisationId),
    ]);
    return approvals.map((a) =>
      toConnectedAppResponse(
        a,
        connections.filter((c) => c.client_id === a.client_id),
      ),
    );
  }

  /** Ends every connection of the app: its tokens answer `unauthorized` on the next call. */
  async revoke(organisationId: string, clientId: string, actor: Actor): Promise<ConnectedAppResponse> {
    return this.tx.run(async (uow) => {
      const now = this.clock.now();
      const approval = await this.repo.approval(organisationId, clientId, uow.manager);
      if (!approval) throw ApiError.notFound('The connected app');
      const grants = await this.endConnections(uow, organisationId, clientId, now);
      const row = await this.repo.decide(
        uow.manager,
        organisationId,
        clientId,
        'denied',
        actor.id ?? actor.type,
        now,
      );
      await this.audit.record(
        {
          organisationId,
          livemode: null,
          action: 'oauth_app.revoked',
          actor,
          target: { type: 'oauth_client', id: clientId },
          data: { name: approval.client_name, grants: grants.length },
        },
        uow.manager,
      );
      return toConnectedAppResponse(row!, []);
    });
  }
}
