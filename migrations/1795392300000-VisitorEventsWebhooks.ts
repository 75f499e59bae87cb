import { MigrationInterface, QueryRunner } from 'typeorm';

/** Events (the outbox), webhook endpoints, deliveries and their attempts. */
export class VisitorEventsWebhooks1795392300000 implements MigrationInterface {
  name = 'VisitorEventsWebhooks1795392300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.event (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        type            text        NOT NULL,
        created_at      timestamptz NOT NULL,
        body            text        NOT NULL
      )`);
    await q.query(
      `CREATE INDEX event_tenant_created_idx ON visitor.event (organisation_id, livemode, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX event_tenant_type_created_idx ON visitor.event (organisation_id, livemode, type, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX event_created_idx ON visitor.event (created_at)`);
    await q.query(`
      CREATE TABLE visitor.webhook_endpoint (
        id                          text PRIMARY KEY,
        organisation_id             text        NOT NULL,
        livemode                    boolean     NOT NULL,
        url                         text        NOT NULL,
        description                 text        NOT NULL DEFAULT '',
        enabled_events              text[]      NOT NULL,
        status                      text        NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason             text,
        secret_sealed               text        NOT NULL,
        previous_secret_sealed      text,
        previous_secret_expires_at  timestamptz,
        failing_since               timestamptz,
        created_at                  timestamptz NOT NULL,
        updated_at                  timestamptz NOT NULL,
        deleted_at                  timestamptz
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoint_tenant_idx ON visitor.webhook_endpoint (organisation_id, livemode, created_at, id) WHERE deleted_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE visitor.webhook_delivery (
        id               text PRIMARY KEY,
        organisation_id  text        NOT NULL,
        livemode         boolean     NOT NULL,
        event_id         text        NOT NULL REFERENCES visitor.event (id) ON DELETE CASCADE,
        endpoint_id      text        NOT NULL REFERENCES visitor.webhook_endpoint (id) ON DELETE CASCADE,
        status           text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count    integer     NOT NULL DEFAULT 0,
        next_attempt_at  timestamptz,
        locked_until     timestamptz,
        first_failure_at timestamptz,
        last_attempt_at  timestamptz,
        last_status_code integer,
        last_error       text,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX webhook_delivery_due_idx ON visitor.webhook_delivery (next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX webhook_delivery_event_idx ON visitor.webhook_delivery (event_id)`);
    await q.query(
      `CREATE INDEX webhook_delivery_endpoint_idx ON visitor.webhook_delivery (endpoint_id, created_at DESC)`,
    );
    await q.query(`
      CREATE TABLE visitor.webhook_attempt (
        id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id      text        NOT NULL REFERENCES visitor.webhook_delivery (id) ON DELETE CASCADE,
        attempt_number   integer     NOT NULL,
        attempted_at     timestamptz NOT NULL,
        status_code      integer,
        duration_ms      integer     NOT NULL,
        error            text,
        response_excerpt text
      )`);
    await q.query(
      `CREATE INDEX webhook_attempt_delivery_idx ON visitor.webhook_attempt (delivery_id, attempt_number)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.webhook_attempt`);
    await q.query(`DROP TABLE visitor.webhook_delivery`);
    await q.query(`DROP TABLE visitor.webhook_endpoint`);
    await q.query(`DROP TABLE visitor.event`);
  }
}
