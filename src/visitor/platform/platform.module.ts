import { Global, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { OrganisationsRepository } from '../organisations/organisations.repository';
import { OrganisationsService } from '../organisations/organisations.service';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { CredentialRegistry } from './credential.registry';
import { CursorCodecProvider } from './cursor-codec.provider';
import { IdempotencyClaims, IdempotencyPurge } from './idempotency';
import { IdempotencyRepository } from './idempotency.repository';
import { VisitorAuthGuard } from './visitor-auth.guard';

const SERVICES = [
  OrganisationsRepository,
  OrganisationsService,
  ApiKeysRepository,
  ApiKeysService,
  AuditRepository,
  AuditService,
  CredentialRegistry,
  CursorCodecProvider,
  IdempotencyRepository,
  IdempotencyClaims,
];

/**
 * The visitor API's platform layer: organisations and sites, API keys, the audit trail, the /v1 guard chain
 * (APP_GUARD, acting on /v1 only) and idempotency (attached by @Authorize, /v1 POSTs only). Global so console, CLI
 * and domain modules share one instance of each service.
 */
@Global()
@Module({
  providers: [...SERVICES, IdempotencyPurge, { provide: APP_GUARD, useClass: VisitorAuthGuard }],
  exports: SERVICES,
})
export class PlatformModule implements OnModuleInit {
  constructor(
    private readonly registry: CredentialRegistry,
    private readonly keys: ApiKeysService,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.keys);
  }
}
