import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { AccountsModule } from '../visitor/accounts/accounts.module';
import { AuditModule } from '../visitor/audit/audit.module';
import { ConnectedAppsModule } from '../visitor/connected-apps/connected-apps.module';
import { OrganisationsModule } from '../visitor/organisations/organisations.module';
import { AuthorizationFlowService } from './authorize/authorization-flow.service';
import { AuthorizeController } from './authorize/authorize.controller';
import { ClientsRepository } from './clients/clients.repository';
import { ClientsService } from './clients/clients.service';
import { OAuthModelRepository } from './oauth-model.repository';
import { OAuthServer } from './oauth-server';
import { fastifyOf } from '../common/http/http-host';

/**
 * The OAuth 2.1 authorization server (token, registration, revocation and metadata endpoints on AUTH_URL; the
 * authorization page on APP_URL), served with the console surface: the engine, its PostgreSQL storage, client
 * registration, and the sign-in / consent / approval pages. Connections and the /v1 token resolver are
 * `visitor/connected-apps`.
 */
@Module({
  imports: [AccountsModule, AuditModule, ConnectedAppsModule, OrganisationsModule, RateLimitModule],
  controllers: [AuthorizeController],
  providers: [OAuthModelRepository, ClientsRepository, ClientsService, OAuthServer, AuthorizationFlowService],
  exports: [ClientsService, ConnectedAppsModule],
})
export class OAuthModule implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly server: OAuthServer,
  ) {}

  onModuleInit(): void {
    const fastify = fastifyOf(this.host);
    if (!fastify) return;
    this.server.mount(fastify);
  }
}
