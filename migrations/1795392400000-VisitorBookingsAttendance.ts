import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Booking types, their slot counters (capacity is enforced here: a slot's row is locked by the upsert that takes
 * a place, and a CHECK keeps `taken` within `capacity`), bookings; shifts and who works them, clock events,
 * evidence consents, leave and public holidays.
 */
export class VisitorBookingsAttendance1795392400000 implements MigrationInterface {
  name = 'VisitorBookingsAttendance1795392400000';

  async up(q: QueryRunner): Promise<void> {
    // A visit made by confirming a booking has the source `booking`.
    await q.query(`ALTER TABLE visitor.visit DROP CONSTRAINT visit_source_check`);
    await q.query(
      `ALTER TABLE visitor.visit ADD CONSTRAINT visit_source_check CHECK (source IN ('invitation','pre_registration','booking'))`,
    );
    await q.query(`
      CREATE TABLE visitor.booking_type (
        id                        text PRIMARY KEY,
        organisation_id           text        NOT NULL,
        livemode                  boolean     NOT NULL,
        name                      text        NOT NULL,
        visit_type                text        NOT NULL,
        site_id                   text        NOT NULL,
        host_ids                  text[]      NOT NULL,
        duration_minutes          integer     NOT NULL CHECK (duration_minutes BETWEEN 5 AND 1440),
        buffer_minutes            integer     NOT NULL DEFAULT 0 CHECK (buffer_minutes BETWEEN 0 AND 1440),
        capacity                  integer     NOT NULL CHECK (capacity BETWEEN 1 AND 10000),
        requires_confirmation     boolean     NOT NULL DEFAULT false,
        confirmation_window_hours integer     NOT NULL DEFAULT 24 CHECK (confirmation_window_hours BETWEEN 1 AND 720),
        is_public                 boolean     NOT NULL DEFAULT false,
        weekly_hours              jsonb       NOT NULL,
        closed_dates              date[]      NOT NULL DEFAULT '{}',
        horizon_days              integer     NOT NULL DEFAULT 60 CHECK (horizon_days BETWEEN 1 AND 366),
        min_notice_minutes        integer     NOT NULL DEFAULT 0 CHECK (min_notice_minutes >= 0),
        active                    boolean     NOT NULL DEFAULT true,
        created_at                timestamptz NOT NULL,
        updated_at                timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX booking_type_tenant_order_idx ON visitor.booking_type (organisation_id, livemode, created_at, id)`,
    );
    await q.query(`
      CREATE TABLE visitor.booking_slot (
        booking_type_id text        NOT NULL,
        starts_at       timestamptz NOT NULL,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        capacity        integer     NOT NULL,
        taken           integer     NOT NULL,
        PRIMARY KEY (booking_type_id, starts_at),
        CONSTRAINT booking_slot_within_capacity CHECK (taken >= 0 AND taken <= capacity)
      )`);
    await q.query(`
      CREATE TABLE visitor.booking (
        id                         text PRIMARY KEY,
        organisation_id            text        NOT NULL,
        livemode                   boolean     NOT NULL,
        booking_type_id            text        NOT NULL,
        status                     text        NOT NULL,
        source                     text        NOT NULL,
        starts_at                  timestamptz NOT NULL,
        ends_at                    timestamptz NOT NULL,
        site_id                    text        NOT NULL,
        host_id                    text        NOT NULL,
        attendee_name              text,
        attendee_phone             text,
        attendee_email             text,
        attendee_company           text,
        custom_fields              jsonb       NOT NULL DEFAULT '{}',
        visit_id                   text,
        confirm_by                 timestamptz,
        confirmed_at               timestamptz,
        declined_at                timestamptz,
        decline_reason             text,
        share_reason_with_attendee boolean     NOT NULL DEFAULT false,
        expired_at                 timestamptz,
        cancelled_at               timestamptz,
        cancel_reason              text,
        rescheduled_at             timestamptz,
        created_at                 timestamptz NOT NULL,
        updated_at                 timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX booking_tenant_order_idx ON visitor.booking (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX booking_type_start_idx ON visitor.booking (organisation_id, livemode, booking_type_id, starts_at)`,
    );
    await q.query(
      `CREATE INDEX booking_pending_due_idx ON visitor.booking (confirm_by) WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX booking_attendee_phone_idx ON visitor.booking (organisation_id, livemode, attendee_phone)`,
    );

    await q.query(`
      CREATE TABLE visitor.shift (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        name            text        NOT NULL,
        site_id         text        NOT NULL,
        start_time      time        NOT NULL,
        end_time        time        NOT NULL,
        grace_minutes   integer     NOT NULL DEFAULT 0 CHECK (grace_minutes BETWEEN 0 AND 240),
        days_of_week    integer[]   NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX shift_tenant_order_idx ON visitor.shift (organisation_id, livemode, created_at, id)`,
    );
    // One shift per person (and mode): the pattern late minutes and the daily status are computed against.
    await q.query(`
      CREATE TABLE visitor.shift_assignment (
        organisation_id text    NOT NULL,
        livemode        boolean NOT NULL,
        person_id       text    NOT NULL,
        shift_id        text    NOT NULL,
        PRIMARY KEY (organisation_id, livemode, person_id)
      )`);
    await q.query(`CREATE INDEX shift_assignment_shift_idx ON visitor.shift_assignment (shift_id)`);
    await q.query(`
      CREATE TABLE visitor.attendance_event (
        id                text PRIMARY KEY,
        organisation_id   text        NOT NULL,
        livemode          boolean     NOT NULL,
        person_id         text        NOT NULL,
        site_id           text        NOT NULL,
        direction         text        NOT NULL CHECK (direction IN ('in', 'out')),
        occurred_at       timestamptz NOT NULL,
        local_date        date        NOT NULL,
        method            text        NOT NULL,
        device_id         text,
        evidence_kind     text,
        evidence_ref      text,
        offline           boolean     NOT NULL DEFAULT false,
        late_minutes      integer,
        shift_id          text,
        created_at        timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX attendance_event_tenant_order_idx ON visitor.attendance_event (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX attendance_event_day_idx ON visitor.attendance_event (organisation_id, livemode, local_date, person_id)`,
    );
    await q.query(
      `CREATE INDEX attendance_event_person_idx ON visitor.attendance_event (organisation_id, livemode, person_id, occurred_at)`,
    );
    await q.query(`
      CREATE TABLE visitor.attendance_consent (
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        person_id       text        NOT NULL,
        kind            text        NOT NULL CHECK (kind IN ('face', 'selfie', 'location')),
        given           boolean     NOT NULL,
        updated_at      timestamptz NOT NULL,
        PRIMARY KEY (organisation_id, livemode, person_id, kind)
      )`);
    await q.query(`
      CREATE TABLE visitor.attendance_leave (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        person_id       text        NOT NULL,
        leave_type      text        NOT NULL,
        first_day       date        NOT NULL,
        last_day        date        NOT NULL CHECK (last_day >= first_day),
        created_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX attendance_leave_person_idx ON visitor.attendance_leave (organisation_id, livemode, person_id, first_day)`,
    );
    await q.query(`
      CREATE TABLE visitor.public_holiday (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        site_id         text,
        day             date        NOT NULL,
        name            text        NOT NULL,
        created_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX public_holiday_day_idx ON visitor.public_holiday (organisation_id, livemode, day)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'public_holiday',
      'attendance_leave',
      'attendance_consent',
      'attendance_event',
      'shift_assignment',
      'shift',
      'booking',
      'booking_slot',
      'booking_type',
    ])
      await q.query(`DROP TABLE visitor.${t}`);
    await q.query(`ALTER TABLE visitor.visit DROP CONSTRAINT visit_source_check`);
    await q.query(
      `ALTER TABLE visitor.visit ADD CONSTRAINT visit_source_check CHECK (source IN ('invitation','pre_registration'))`,
    );
  }
}
