import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log stored a batch to a row: the rows of one write (up to REQUEST_LOG_BATCH_SIZE requests) as lines
 * of text in one value, with the range of request ids it holds (GiST-indexed: a lookup by id finds its batch in
 * a few pages), the public error refs among them (GIN, on batches that have any) and its time span (the
 * purge). PostgreSQL then stores one tuple, one WAL record and two small index entries for hundreds of requests
 * instead of a tuple and three index entries each. The lines are compressed with lz4 where the server has it;
 * otherwise they are stored out of line uncompressed (pglz would cost more than the rows it replaces).
 */
export class RequestLogBatches1795392301000 implements MigrationInterface {
  name = 'RequestLogBatches1795392301000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ops.request_log`);
    await q.query(`CREATE TYPE ops.request_id_range AS RANGE (subtype = text, collation = "C")`);
    await q.query(`
      CREATE TABLE ops.request_log_batch (
        request_ids        ops.request_id_range NOT NULL,
        first_received_at  timestamptz NOT NULL,
        last_received_at   timestamptz NOT NULL,
        error_refs         text[]      NOT NULL,
        row_count          integer     NOT NULL,
        lines              text        NOT NULL
      )`);
    await q.query(
      `CREATE INDEX request_log_batch_request_ids_idx ON ops.request_log_batch USING gist (request_ids)`,
    );
    await q.query(
      `CREATE INDEX request_log_batch_error_refs_idx ON ops.request_log_batch USING gin (error_refs)
        WHERE cardinality(error_refs) > 0`,
    );
    await q.query(
      `CREATE INDEX request_log_batch_last_received_at_idx ON ops.request_log_batch (last_received_at)`,
    );
    await q.query(`
      DO $$ BEGIN
        ALTER TABLE ops.request_log_batch ALTER COLUMN lines SET COMPRESSION lz4;
      EXCEPTION WHEN OTHERS THEN
        ALTER TABLE ops.request_log_batch ALTER COLUMN lines SET STORAGE EXTERNAL;
      END $$`);
  }

  /** Back to the row-per-request table of the Foundation and RequestLogBrin migrations (empty). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ops.request_log_batch`);
    await q.query(`DROP TYPE ops.request_id_range`);
    await q.query(`
      CREATE TABLE ops.request_log (
        id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        request_id      text        NOT NULL,
        error_ref       text,
        received_at     timestamptz NOT NULL,
        surface         text        NOT NULL,
        method          text        NOT NULL,
        path            text        NOT NULL,
        status          smallint    NOT NULL,
        error_code      text,
        duration_ms     real        NOT NULL,
        client_ip       text,
        organisation_id text,
        credential_id   text,
        livemode        boolean
      )`);
    await q.query(`CREATE INDEX request_log_request_id_idx ON ops.request_log (request_id)`);
    await q.query(
      `CREATE INDEX request_log_error_ref_idx ON ops.request_log (error_ref) WHERE error_ref IS NOT NULL`,
    );
    await q.query(`CREATE INDEX request_log_received_at_idx ON ops.request_log USING brin (received_at)`);
  }
}
