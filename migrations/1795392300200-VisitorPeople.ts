import { MigrationInterface, QueryRunner } from 'typeorm';

/** People: hosts and employees of an organisation, per mode. */
export class VisitorPeople1795392300200 implements MigrationInterface {
  name = 'VisitorPeople1795392300200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.person (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        name            text        NOT NULL,
        email           text        NOT NULL,
        phone           text,
        department      text,
        job_title       text,
        employee_number text,
        site_ids        text[]      NOT NULL DEFAULT '{}',
        can_host        boolean     NOT NULL DEFAULT true,
        active          boolean     NOT NULL DEFAULT true,
        custom_fields   jsonb       NOT NULL DEFAULT '{}',
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    // E-mail is unique among the people of an organisation and mode, case-insensitively.
    await q.query(
      `CREATE UNIQUE INDEX person_email_uq ON visitor.person (organisation_id, livemode, lower(email))`,
    );
    await q.query(
      `CREATE INDEX person_tenant_order_idx ON visitor.person (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX person_search_idx ON visitor.person USING gin (to_tsvector('simple', name || ' ' || email))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.person`);
  }
}
