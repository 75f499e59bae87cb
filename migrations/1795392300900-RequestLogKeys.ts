import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cheaper request-log rows (every request writes one): no identity column (its sequence and primary-key B-tree
 * were paid on every insert and used only by the purge, which now deletes by ctid), and request ids, which are
 * now issued in time order, compared in byte order (`COLLATE "C"`), so their B-tree is appended at its right edge.
 * The index is not unique: a batch retried after an ambiguous failure may store a row twice, and a lookup shows
 * one request once.
 */
export class RequestLogKeys1795392300900 implements MigrationInterface {
  name = 'RequestLogKeys1795392300900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ops.request_log_request_id_idx`);
    await q.query(`ALTER TABLE ops.request_log DROP COLUMN id`);
    await q.query(`ALTER TABLE ops.request_log ALTER COLUMN request_id TYPE text COLLATE "C"`);
    await q.query(`CREATE INDEX request_log_request_id_idx ON ops.request_log (request_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ops.request_log_request_id_idx`);
    await q.query(`ALTER TABLE ops.request_log ALTER COLUMN request_id TYPE text COLLATE "default"`);
    await q.query(
      `ALTER TABLE ops.request_log ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`,
    );
    await q.query(`CREATE INDEX request_log_request_id_idx ON ops.request_log (request_id)`);
  }
}
