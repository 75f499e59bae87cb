import { MigrationInterface, QueryRunner } from 'typeorm';

/** Custom-field forms (JSON Schemas) per organisation, mode and kind; every save is a new version. */
export class VisitorForms1795392300300 implements MigrationInterface {
  name = 'VisitorForms1795392300300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.form (
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        kind            text        NOT NULL CHECK (kind IN ('visit', 'person')),
        version         integer     NOT NULL,
        schema          jsonb       NOT NULL,
        created_at      timestamptz NOT NULL,
        PRIMARY KEY (organisation_id, livemode, kind, version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.form`);
  }
}
