import { MigrationInterface, QueryRunner } from 'typeorm';

/** Schemas of the four areas, the support request log and the seed marker. */
export class Foundation1795392000000 implements MigrationInterface {
  name = 'Foundation1795392000000';

  async up(q: QueryRunner): Promise<void> {
    for (const schema of ['content', 'visitor', 'oauth', 'ops'])
      await q.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await q.query(`
      CREATE TABLE ops.request_log (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        request_id    text        NOT NULL,
        error_ref     text,
        received_at   timestamptz NOT NULL,
        surface       text        NOT NULL,
        method        text        NOT NULL,
        path          text        NOT NULL,
        status        smallint    NOT NULL,
        error_code    text,
        duration_ms   real        NOT NULL,
        client_ip     text,
        organisation_id text,
        credential_id text,
        livemode      boolean
      )`);
    await q.query(`CREATE INDEX request_log_request_id_idx ON ops.request_log (request_id)`);
    await q.query(
      `CREATE INDEX request_log_error_ref_idx ON ops.request_log (error_ref) WHERE error_ref IS NOT NULL`,
    );
    await q.query(`CREATE INDEX request_log_received_at_idx ON ops.request_log (received_at)`);
    await q.query(`
      CREATE TABLE ops.seed_run (
        name       text PRIMARY KEY,
        scale      integer     NOT NULL,
        seeded_at  timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ops.seed_run`);
    await q.query(`DROP TABLE ops.request_log`);
    for (const schema of ['ops', 'oauth', 'visitor', 'content'])
      await q.query(`DROP SCHEMA IF EXISTS ${schema}`);
  }
}
