import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries held while a live-mode organisation's plan lacks webhooks: `held_since` is set when a claim finds
 * the plan lapsed (nothing is attempted, nothing counts toward auto-disable) and cleared by the sweeper when
 * the plan returns. The due index leaves held deliveries out, so the sweeper never scans them; a second
 * partial index finds them per organisation on resume.
 */
export class WebhookDeliveryHold1795392300700 implements MigrationInterface {
  name = 'WebhookDeliveryHold1795392300700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.webhook_delivery ADD COLUMN held_since timestamptz`);
    await q.query(`DROP INDEX visitor.webhook_delivery_due_idx`);
    await q.query(
      `CREATE INDEX webhook_delivery_due_idx ON visitor.webhook_delivery (next_attempt_at) WHERE status = 'pending' AND held_since IS NULL`,
    );
    await q.query(
      `CREATE INDEX webhook_delivery_held_idx ON visitor.webhook_delivery (organisation_id) WHERE status = 'pending' AND held_since IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX visitor.webhook_delivery_held_idx`);
    await q.query(`DROP INDEX visitor.webhook_delivery_due_idx`);
    await q.query(
      `CREATE INDEX webhook_delivery_due_idx ON visitor.webhook_delivery (next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(`ALTER TABLE visitor.webhook_delivery DROP COLUMN held_since`);
  }
}
