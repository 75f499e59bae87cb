import { Module, OnModuleInit } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { OAuthModelsModule } from '../../oauth/oauth-models.module';
import { CredentialRegistry } from '../platform/credential.registry';
import { PlatformModule } from '../platform/platform.module';
import { ConnectedAppsRepository } from './connected-apps.repository';
import { ConnectedAppsService } from './connected-apps.service';
import { ConnectedAppsJobs } from './connected-apps.jobs';
import { OAuthTokenResolver } from './oauth-token.resolver';
import { ProtectedResourceController } from './protected-resource.controller';

/**
 * Apps connected through OAuth: each organisation's approvals and connections (schema `oauth`), and the /v1
 * resolver of OAuth access tokens, registered with the credential registry like API keys. The authorization
 * server that issues the tokens is `src/oauth`.
 */
@Module({
  imports: [PlatformModule, AuditModule, AccountsModule, OAuthModelsModule],
  controllers: [ProtectedResourceController],
  providers: [ConnectedAppsRepository, ConnectedAppsService, OAuthTokenResolver, ConnectedAppsJobs],
  exports: [ConnectedAppsService],
})
export class ConnectedAppsModule implements OnModuleInit {
  constructor(
    private readonly registry: CredentialRegistry,
    private readonly tokens: OAuthTokenResolver,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.tokens);
  }
}
