import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less work per recorded attempt (the statement that records a batch of outcomes, WebhooksRepository.recordOutcome):
 * - The foreign key from `webhook_attempt` to `webhook_delivery` goes: PostgreSQL checked it with one query per
 *   inserted attempt, about an eighth of the database's time during a drain. The statement now inserts an attempt
 *   only for a delivery it has just updated (so locked, and existing), and a row trigger on `webhook_delivery` deletes
 *   a deleted delivery's attempts, as the key's ON DELETE CASCADE did, for every way a delivery goes (sandbox reset,
 *   retention, its event's or endpoint's deletion); a statement trigger empties the attempts when the deliveries are
 *   truncated.
 * - One index instead of two: the primary key becomes `(delivery_id, id)`, which serves the lookups by delivery (the
 *   delivery log, erasure, the trigger); the identity column alone was never looked up.
 */
export class WebhookAttemptLean1795392738000 implements MigrationInterface {
  name = 'WebhookAttemptLean1795392738000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.webhook_attempt DROP CONSTRAINT webhook_attempt_delivery_id_fkey`);
    await q.query(`
      CREATE FUNCTION visitor.webhook_delivery_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM visitor.webhook_attempt WHERE delivery_id = OLD.id; RETURN NULL; END $$`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_deleted AFTER DELETE ON visitor.webhook_delivery
        FOR EACH ROW EXECUTE FUNCTION visitor.webhook_delivery_deleted()`);
    // A row trigger does not fire on TRUNCATE (which the key used to refuse, or carry on with CASCADE).
    await q.query(`
      CREATE FUNCTION visitor.webhook_delivery_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN TRUNCATE visitor.webhook_attempt; RETURN NULL; END $$`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_truncated AFTER TRUNCATE ON visitor.webhook_delivery
        FOR EACH STATEMENT EXECUTE FUNCTION visitor.webhook_delivery_truncated()`);
    await q.query(`ALTER TABLE visitor.webhook_attempt DROP CONSTRAINT webhook_attempt_pkey`);
    await q.query(`DROP INDEX visitor.webhook_attempt_delivery_idx`);
    await q.query(
      `ALTER TABLE visitor.webhook_attempt ADD CONSTRAINT webhook_attempt_pkey PRIMARY KEY (delivery_id, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.webhook_attempt DROP CONSTRAINT webhook_attempt_pkey`);
    await q.query(`ALTER TABLE visitor.webhook_attempt ADD CONSTRAINT webhook_attempt_pkey PRIMARY KEY (id)`);
    await q.query(
      `CREATE INDEX webhook_attempt_delivery_idx ON visitor.webhook_attempt (delivery_id, attempt_number)`,
    );
    await q.query(`DROP TRIGGER webhook_delivery_truncated ON visitor.webhook_delivery`);
    await q.query(`DROP FUNCTION visitor.webhook_delivery_truncated()`);
    await q.query(`DROP TRIGGER webhook_delivery_deleted ON visitor.webhook_delivery`);
    await q.query(`DROP FUNCTION visitor.webhook_delivery_deleted()`);
    await q.query(`
      DELETE FROM visitor.webhook_attempt a
       WHERE NOT EXISTS (SELECT 1 FROM visitor.webhook_delivery d WHERE d.id = a.delivery_id)`);
    await q.query(`
      ALTER TABLE visitor.webhook_attempt ADD CONSTRAINT webhook_attempt_delivery_id_fkey
        FOREIGN KEY (delivery_id) REFERENCES visitor.webhook_delivery (id) ON DELETE CASCADE`);
  }
}
