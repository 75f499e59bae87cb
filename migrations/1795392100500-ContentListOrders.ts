import { MigrationInterface, QueryRunner } from 'typeorm';

/** Indexes that serve the documented orders of the remaining public lists (so a page is an index range). */
export class ContentListOrders1795392100500 implements MigrationInterface {
  name = 'ContentListOrders1795392100500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX durbar_public_order_idx ON content.durbar (
         (CASE status WHEN 'live' THEN 0 WHEN 'scheduled' THEN 1 ELSE 2 END),
         (CASE WHEN status = 'scheduled' THEN scheduled_for END),
         (COALESCE(ended_at, started_at)) DESC, id)
       WHERE status IN ('scheduled', 'live', 'ended') AND visibility = 'public'`,
    );
    await q.query(
      `CREATE INDEX review_entity_public_idx ON content.review_entity (review_count DESC, slug) WHERE status = 'published'`,
    );
    await q.query(
      `CREATE INDEX community_group_public_idx ON content.community_group (member_count DESC, slug) WHERE visibility = 'public'`,
    );
    await q.query(
      `CREATE INDEX post_author_idx ON content.post (author_handle, created_at DESC, id DESC) WHERE status = 'published'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const i of [
      'post_author_idx',
      'community_group_public_idx',
      'review_entity_public_idx',
      'durbar_public_order_idx',
    ])
      await q.query(`DROP INDEX content.${i}`);
  }
}
