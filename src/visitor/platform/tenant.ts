import type { FindOptionsWhere, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/** One partition of an organisation's data: every tenant row carries both values, every query filters on both. */
export interface Tenant {
  organisationId: string;
  livemode: boolean;
}

/**
 * Refuses to run a tenant query without a tenant: a bug must fail loudly, never read across tenants (TypeORM
 * drops undefined values from WHERE clauses, which would otherwise match every row).
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

/**
 * Inserts a tenant's row, or updates it when the tenant already has a row with its id: the update is filtered on
 * the row's own organisation and mode, so a row of another tenant with that id is never touched (the insert then
 * fails on the primary key). TypeORM's `save` would update by id alone and move another tenant's row into this one.
 */
export async function saveInTenant<T extends Tenant & { id: string }>(
  repo: Repository<T>,
  row: T,
): Promise<void> {
  assertTenant(row);
  const where = { id: row.id, organisationId: row.organisationId, livemode: row.livemode };
  const { affected } = await repo.update(where as FindOptionsWhere<T>, row as QueryDeepPartialEntity<T>);
  if (!affected) await repo.insert(row as QueryDeepPartialEntity<T>);
}
