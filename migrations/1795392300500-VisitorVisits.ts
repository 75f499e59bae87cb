import { MigrationInterface, QueryRunner } from 'typeorm';

/** Visitor records, visits with their state, and passes, per organisation and mode. */
export class VisitorVisits1795392300500 implements MigrationInterface {
  name = 'VisitorVisits1795392300500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE visitor.visitor (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        name            text,
        phone           text,
        email           text,
        company         text,
        last_visit_at   timestamptz NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL,
        erased_at       timestamptz
      )`);
    // A visitor is matched by phone number within an organisation and mode; erased records hold no phone.
    await q.query(
      `CREATE UNIQUE INDEX visitor_phone_uq ON visitor.visitor (organisation_id, livemode, phone) WHERE phone IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE visitor.visit (
        id                text PRIMARY KEY,
        organisation_id   text        NOT NULL,
        livemode          boolean     NOT NULL,
        status            text        NOT NULL CHECK (status IN ('expected','awaiting_approval','checked_in','checked_out','cancelled','denied','no_show')),
        type              text        NOT NULL,
        source            text        NOT NULL CHECK (source IN ('invitation','pre_registration')),
        site_id           text        NOT NULL REFERENCES visitor.site (id),
        gate_id           text        REFERENCES visitor.gate (id),
        host_id           text        NOT NULL REFERENCES visitor.person (id),
        visitor_id        text        NOT NULL REFERENCES visitor.visitor (id),
        purpose           text        NOT NULL DEFAULT '',
        expected_at       timestamptz,
        expected_until    timestamptz,
        checked_in_at     timestamptz,
        checked_out_at    timestamptz,
        cancelled_at      timestamptz,
        cancel_reason     text,
        decision_outcome  text CHECK (decision_outcome IN ('approved','denied')),
        decided_at        timestamptz,
        decided_by        text,
        decision_reason   text,
        booking_id        text,
        pass_channels     text[]      NOT NULL,
        pass_last_sent_at timestamptz,
        custom_fields     jsonb       NOT NULL DEFAULT '{}',
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz NOT NULL,
        CHECK (expected_until IS NULL OR (expected_at IS NOT NULL AND expected_until > expected_at))
      )`);
    await q.query(
      `CREATE INDEX visit_tenant_order_idx ON visitor.visit (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX visit_tenant_status_idx ON visitor.visit (organisation_id, livemode, status, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX visit_tenant_site_idx ON visitor.visit (organisation_id, livemode, site_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX visit_tenant_host_idx ON visitor.visit (organisation_id, livemode, host_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX visit_visitor_idx ON visitor.visit (visitor_id)`);
    // The no-show job looks only at expected visits whose window has ended.
    await q.query(
      `CREATE INDEX visit_no_show_idx ON visitor.visit ((COALESCE(expected_until, expected_at))) WHERE status = 'expected'`,
    );
    await q.query(`
      CREATE TABLE visitor.visit_pass (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        visit_id        text        NOT NULL REFERENCES visitor.visit (id) ON DELETE CASCADE,
        channels        text[]      NOT NULL,
        status          text        NOT NULL CHECK (status IN ('pending','sent','failed')),
        channel         text,
        message_id      text,
        error           text,
        created_at      timestamptz NOT NULL,
        sent_at         timestamptz,
        revoked_at      timestamptz
      )`);
    await q.query(`CREATE INDEX visit_pass_visit_idx ON visitor.visit_pass (visit_id, created_at)`);
    await q.query(
      `CREATE INDEX visit_pass_pending_idx ON visitor.visit_pass (created_at) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.visit_pass`);
    await q.query(`DROP TABLE visitor.visit`);
    await q.query(`DROP TABLE visitor.visitor`);
  }
}
