import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ApiProperty } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { IS_RESPONSE, Transactions } from '../../database/unit-of-work';
import { Actor, AuditService } from '../audit/audit.service';
import { orderedProviders } from '../platform/ordered-providers';
import { SANDBOX_DATA, SandboxDataHolder } from '../platform/sandbox-data';

export class SandboxResetResponse {
  @ApiProperty({ example: 'sandbox_reset' }) object: 'sandbox_reset';
  @ApiProperty({ example: false, description: 'Always false: only test-mode data is deleted' })
  livemode: false;
  @ApiProperty({
    description: 'Rows deleted, per kind of record',
    example: { visits: 12, visitors: 9, bookings: 3, events: 41, messages: 12 },
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  deleted: Record<string, number>;
}

/** `VisitsRepository` → `visits`, `BookingTypesRepository` → `booking_types`. */
const kindOf = (h: SandboxDataHolder) =>
  h.constructor.name
    .replace(/Repository$/, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase();

/**
 * The sandbox reset (issue 33): deletes an organisation's test-mode activity — visits and their passes, visitors,
 * bookings and slot counters, events and their webhook deliveries, messages, deliveries, roll calls, clock events,
 * files, watchlist matches, stored idempotent responses — in one transaction, by calling `clearSandbox` on every
 * provider marked `@HoldsSandboxData`, in order; audited as `sandbox.reset`. Configuration stays: sites and gates,
 * people, visit and booking types, forms, shifts, leave and holidays, keys, webhook endpoints, watchlist entries, the
 * audit trail. Live data is never touched (every holder refuses a live tenant).
 */
@Injectable()
export class SandboxReset implements OnModuleInit {
  private holders: SandboxDataHolder[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly tx: Transactions,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.holders = orderedProviders<SandboxDataHolder>(this.discovery, this.reflector, SANDBOX_DATA);
  }

  /** The kinds a reset deletes, in its order. */
  kinds(): string[] {
    return this.holders.map(kindOf);
  }

  async reset(organisationId: string, actor: Actor, request?: FastifyRequest): Promise<SandboxResetResponse> {
    const tenant = { organisationId, livemode: false };
    // the answer is stored with the change when the request is idempotent (POST /v1/test-helpers/sandbox/reset)
    return this.tx.run(async (uow): Promise<SandboxResetResponse> => {
      const deleted: Record<string, number> = {};
      for (const h of this.holders) deleted[kindOf(h)] = await h.clearSandbox(uow, tenant);
      await this.audit.record(
        { organisationId, livemode: false, action: 'sandbox.reset', actor, data: { deleted }, request },
        uow.manager,
      );
      return { object: 'sandbox_reset', livemode: false, deleted };
    }, IS_RESPONSE);
  }
}
