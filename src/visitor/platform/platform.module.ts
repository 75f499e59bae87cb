import { Module } from '@nestjs/common';
import { RateLimitModule } from '../../common/rate-limit/rate-limit.module';
import { OpenApiModule } from '../../docs/docs.module';
import { PassportModule } from '@nestjs/passport';
import { BearerCredentialGuard, BearerCredentialStrategy } from './bearer.strategy';
import { CredentialRegistry } from './credential.registry';
import { CursorCodecProvider } from './cursor-codec.provider';
import { IdempotencyClaims, IdempotencyInterceptor } from './idempotency';
import { IdempotencyJobs } from './idempotency.jobs';
import { IdempotencyRepository } from './idempotency.repository';
import { ReferenceCache } from './reference-cache';
import { VisitorAuthGuard } from './visitor-auth.guard';

const SHARED = [
  CredentialRegistry,
  CursorCodecProvider,
  IdempotencyClaims,
  IdempotencyInterceptor,
  VisitorAuthGuard,
  BearerCredentialStrategy,
  BearerCredentialGuard,
  ReferenceCache,
];

/**
 * The visitor API's platform layer, imported by every /v1 domain module: the credential registry (resolvers such
 * as API keys register themselves), the guard chain and idempotency that `@Authorize` attaches to each route,
 * signed cursors and the reference checks' cache (`ReferenceCache`). It knows no domain.
 */
@Module({
  imports: [RateLimitModule, OpenApiModule, PassportModule],
  providers: [...SHARED, IdempotencyRepository, IdempotencyJobs],
  exports: [...SHARED, RateLimitModule],
})
export class PlatformModule {}
