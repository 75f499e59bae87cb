import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `published.watchlist_tenants` (watchlist): the tenant of every watchlist entry, expired ones included. A visit's
 * create statement probes it (`EXISTS … WHERE organisation_id = … AND livemode = …`, an index probe on
 * `watchlist_entry_tenant_order_idx`) to screen the visit only when the tenant has a watchlist, in the writing
 * transaction, without naming the watchlist's table.
 */
export class PublishedWatchlistTenants1795392735000 implements MigrationInterface {
  name = 'PublishedWatchlistTenants1795392735000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE VIEW published.watchlist_tenants AS SELECT organisation_id, livemode FROM visitor.watchlist_entry`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW published.watchlist_tenants`);
  }
}
