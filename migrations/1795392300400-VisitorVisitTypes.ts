import { MigrationInterface, QueryRunner } from 'typeorm';

/** Organisation settings of visit types: built-in keys need a row only once changed; custom keys always have one. */
export class VisitorVisitTypes1795392300400 implements MigrationInterface {
  name = 'VisitorVisitTypes1795392300400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.visit_type (
        organisation_id  text        NOT NULL,
        livemode         boolean     NOT NULL,
        key              text        NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,39}$'),
        name             text        NOT NULL,
        enabled          boolean     NOT NULL,
        pre_registration boolean     NOT NULL DEFAULT false,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        PRIMARY KEY (organisation_id, livemode, key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.visit_type`);
  }
}
