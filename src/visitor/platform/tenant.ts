/** One partition of an organisation's data: every tenant row carries both values, every query filters on both. */
export interface Tenant {
  organisationId: string;
  livemode: boolean;
}

/**
 * Refuses to run a tenant query without a tenant: a bug must fail loudly, never read across tenants (a
 * query built without one would otherwise match every row).
 */
export function assertTenant(t: Tenant): void {
  if (
    !t ||
    typeof t.organisationId !== 'string' ||
    t.organisationId === '' ||
    typeof t.livemode !== 'boolean'
  )
    throw new Error('tenant (organisationId, livemode) is required');
}

export const modeName = (livemode: boolean): 'live' | 'test' => (livemode ? 'live' : 'test');
