import { Module, OnModuleInit } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { CredentialRegistry } from '../platform/credential.registry';
import { PlatformModule } from '../platform/platform.module';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

/** API keys (secret and publishable, live and test): issued in the console and CLI, resolved for /v1. */
@Module({
  imports: [PlatformModule, AuditModule, OrganisationsModule],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule implements OnModuleInit {
  constructor(
    private readonly registry: CredentialRegistry,
    private readonly keys: ApiKeysService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.keys);
  }
}
