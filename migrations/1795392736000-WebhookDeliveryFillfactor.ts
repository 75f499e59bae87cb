import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page of `webhook_delivery` for the claim's new row version: a claim sets only `locked_until`,
 * `held_since` (NULL to NULL while the plan holds) and `updated_at`, no indexed column, so with free space on the
 * page PostgreSQL writes it as a HOT update — no entry in any of the table's four indexes — where a full page made
 * every claim add one to each. One claim takes every row of a page at once, so the page needs room for a second
 * version of each: half of it (at 70, half the claims were HOT; at 50, 97%). The outcome's update (status,
 * `next_attempt_at`) changes indexed columns either way. Pages written from now on keep the room.
 */
export class WebhookDeliveryFillfactor1795392736000 implements MigrationInterface {
  name = 'WebhookDeliveryFillfactor1795392736000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.webhook_delivery SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.webhook_delivery RESET (fillfactor)`);
  }
}
