import { SetMetadata } from '@nestjs/common';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { Tenant } from './tenant';

export const SANDBOX_DATA = 'gatehouse:sandbox-data';

/**
 * A repository whose table holds test-mode activity (visits, visitors, bookings, events, messages, …). A sandbox
 * reset (`SandboxReset`, POST /v1/test-helpers/sandbox/reset, the console and `gatehouse sandbox reset`) finds every
 * provider marked `@HoldsSandboxData(order)` and calls `clearSandbox` on each, in `order`, in one transaction.
 * Configuration (sites, people, types, forms, shifts, keys, webhook endpoints, the watchlist's entries) and the audit
 * trail hold no `@HoldsSandboxData`: a reset keeps them.
 */
export interface SandboxDataHolder {
  /** Deletes the tenant's rows (the tenant is always test mode); returns how many. */
  clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number>;
}

/** Marks a provider as a `SandboxDataHolder`; lower `order` runs first (rows that refer to others go first). */
export const HoldsSandboxData = (order: number): ClassDecorator => SetMetadata(SANDBOX_DATA, order);

/** A reset deletes test-mode rows only: a live tenant reaching a holder is a bug, refused before any statement. */
export function assertSandbox(tenant: Tenant): void {
  if (tenant.livemode !== false || !tenant.organisationId)
    throw new Error('a sandbox reset runs on a test-mode tenant only');
}
