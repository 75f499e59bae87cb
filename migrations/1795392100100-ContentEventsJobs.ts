import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events (ticket tiers, content blocks; private: promo codes, RSVPs, organizer, joining links) and jobs
 * (employers; private: applications with screening answers, interviews, offers and fees). Full-text search on
 * generated tsvector columns with GIN indexes.
 */
export class ContentEventsJobs1795392100100 implements MigrationInterface {
  name = 'ContentEventsJobs1795392100100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content.event (
        id              text PRIMARY KEY,
        slug            text        NOT NULL UNIQUE,
        title           text        NOT NULL,
        description     text,
        event_type      text        NOT NULL,
        category        text,
        start_date      timestamptz NOT NULL,
        end_date        timestamptz,
        timezone        text        NOT NULL,
        location        text,
        is_online       boolean     NOT NULL,
        online_join_url text,
        image_url       text,
        is_paid         boolean     NOT NULL,
        currency        text        NOT NULL,
        tags            text[]      NOT NULL DEFAULT '{}',
        is_featured     boolean     NOT NULL DEFAULT false,
        status          text        NOT NULL CHECK (status IN ('draft','published','cancelled')),
        organizer_id    text        NOT NULL REFERENCES content.account (id),
        created_at      timestamptz NOT NULL,
        search          tsvector GENERATED ALWAYS AS (
                          to_tsvector('simple', title || ' ' || coalesce(description, '') || ' ' || coalesce(location, '') || ' ' || coalesce(category, ''))
                        ) STORED
      )`);
    await q.query(
      `CREATE INDEX event_search_idx ON content.event USING gin (search) WHERE status = 'published'`,
    );
    await q.query(
      `CREATE INDEX event_public_idx ON content.event (start_date, id) WHERE status = 'published'`,
    );
    await q.query(
      `CREATE INDEX event_public_type_idx ON content.event (event_type, start_date, id) WHERE status = 'published'`,
    );
    await q.query(`
      CREATE TABLE content.event_ticket_tier (
        id          text PRIMARY KEY,
        event_id    text        NOT NULL REFERENCES content.event (id) ON DELETE CASCADE,
        name        text        NOT NULL,
        description text,
        price_minor integer     NOT NULL,
        currency    text        NOT NULL,
        inventory   integer     NOT NULL,
        sold        integer     NOT NULL DEFAULT 0,
        sales_end   timestamptz,
        position    integer     NOT NULL
      )`);
    await q.query(
      `CREATE INDEX event_ticket_tier_event_idx ON content.event_ticket_tier (event_id, position)`,
    );
    await q.query(`
      CREATE TABLE content.event_block (
        id       text PRIMARY KEY,
        event_id text    NOT NULL REFERENCES content.event (id) ON DELETE CASCADE,
        kind     text    NOT NULL CHECK (kind IN ('agenda','speaker','sponsor','gallery')),
        position integer NOT NULL,
        data     jsonb   NOT NULL
      )`);
    await q.query(`CREATE INDEX event_block_event_idx ON content.event_block (event_id, kind, position)`);
    await q.query(`
      CREATE TABLE content.event_promo_code (
        event_id text    NOT NULL REFERENCES content.event (id) ON DELETE CASCADE,
        code     text    NOT NULL,
        percent  integer NOT NULL,
        PRIMARY KEY (event_id, code)
      )`);
    await q.query(`
      CREATE TABLE content.event_rsvp (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id   text        NOT NULL REFERENCES content.event (id) ON DELETE CASCADE,
        name       text        NOT NULL,
        email      text        NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    // array_to_string is only STABLE; for text[] it is in fact immutable, which a generated column needs.
    await q.query(
      `CREATE FUNCTION content.words(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, ' ') $$`,
    );
    await q.query(`
      CREATE TABLE content.employer (
        id            text PRIMARY KEY,
        slug          text    NOT NULL UNIQUE,
        name          text    NOT NULL,
        logo_url      text,
        industry      text,
        location      text,
        is_verified   boolean NOT NULL DEFAULT false,
        contact_email text    NOT NULL,
        billing_notes text
      )`);
    await q.query(`
      CREATE TABLE content.job (
        id                   text PRIMARY KEY,
        slug                 text        NOT NULL UNIQUE,
        title                text        NOT NULL,
        description          text        NOT NULL,
        employment_type      text        NOT NULL,
        workplace_type       text        NOT NULL CHECK (workplace_type IN ('onsite','hybrid','remote')),
        seniority            text        NOT NULL,
        location             text        NOT NULL,
        category             text        NOT NULL,
        salary_min_minor     bigint,
        salary_max_minor     bigint,
        salary_currency      text        NOT NULL,
        salary_period        text        NOT NULL,
        salary_hidden        boolean     NOT NULL DEFAULT false,
        skills               text[]      NOT NULL DEFAULT '{}',
        responsibilities     text[]      NOT NULL DEFAULT '{}',
        requirements         text[]      NOT NULL DEFAULT '{}',
        benefits             text[]      NOT NULL DEFAULT '{}',
        application_deadline timestamptz,
        is_featured          boolean     NOT NULL DEFAULT false,
        status               text        NOT NULL CHECK (status IN ('draft','open','closed')),
        employer_id          text        NOT NULL REFERENCES content.employer (id),
        published_at         timestamptz NOT NULL,
        created_at           timestamptz NOT NULL,
        search               tsvector GENERATED ALWAYS AS (
                               to_tsvector('simple', title || ' ' || description || ' ' || location || ' ' || content.words(skills))
                             ) STORED
      )`);
    await q.query(`CREATE INDEX job_search_idx ON content.job USING gin (search) WHERE status = 'open'`);
    await q.query(
      `CREATE INDEX job_public_idx ON content.job (is_featured DESC, published_at DESC, id DESC) WHERE status = 'open'`,
    );
    await q.query(`
      CREATE TABLE content.job_application (
        id                text PRIMARY KEY,
        job_id            text        NOT NULL REFERENCES content.job (id) ON DELETE CASCADE,
        applicant_name    text        NOT NULL,
        applicant_email   text        NOT NULL,
        applicant_phone   text,
        cover_letter      text,
        screening_answers jsonb       NOT NULL DEFAULT '{}',
        status            text        NOT NULL,
        interview_at      timestamptz,
        offer_amount      bigint,
        placement_fee     bigint,
        created_at        timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX job_application_job_idx ON content.job_application (job_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'job_application',
      'job',
      'employer',
      'event_rsvp',
      'event_promo_code',
      'event_block',
      'event_ticket_tier',
      'event',
    ])
      await q.query(`DROP TABLE content.${t}`);
    await q.query(`DROP FUNCTION content.words(text[])`);
  }
}
