import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request that recorded an event (`request_id`, the `Svc-Request-Id` of the HTTP request whose handler ran;
 * null for events of jobs, the CLI and the seeder): internal, never in an event's payload. The console's request log
 * finds a request's events (and through them its deliveries) by it; the partial index holds only events that have
 * one.
 */
export class EventRequestId1795392720700 implements MigrationInterface {
  name = 'EventRequestId1795392720700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.event ADD COLUMN request_id text`);
    await q.query(
      `CREATE INDEX event_request_idx ON visitor.event (request_id) WHERE request_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX visitor.event_request_idx`);
    await q.query(`ALTER TABLE visitor.event DROP COLUMN request_id`);
  }
}
