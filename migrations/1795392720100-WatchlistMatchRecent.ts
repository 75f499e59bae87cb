import { MigrationInterface, QueryRunner } from 'typeorm';

/** The console's recent watchlist matches of a tenant, newest first (`WatchlistRepository.recentMatches`). */
export class WatchlistMatchRecent1795392720100 implements MigrationInterface {
  name = 'WatchlistMatchRecent1795392720100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX watchlist_match_tenant_recent_idx ON visitor.watchlist_match (organisation_id, livemode, created_at, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX visitor.watchlist_match_tenant_recent_idx`);
  }
}
