import { MigrationInterface, QueryRunner } from 'typeorm';

/** Outgoing messages (passes, notices): the test outbox in test mode, the send log in live mode. */
export class VisitorMessages1795392300100 implements MigrationInterface {
  name = 'VisitorMessages1795392300100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.message (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        channel         text        NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
        recipient       text        NOT NULL,
        subject         text,
        body            text        NOT NULL,
        provider        text        NOT NULL,
        status          text        NOT NULL CHECK (status IN ('outbox', 'sent', 'failed')),
        error           text,
        related_id      text,
        created_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX message_tenant_created_idx ON visitor.message (organisation_id, livemode, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX message_related_idx ON visitor.message (related_id) WHERE related_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.message`);
  }
}
