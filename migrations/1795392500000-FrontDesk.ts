import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Front-desk operations (issue 23): files, deliveries, the watchlist with its matches, roll calls.
 *
 * Watchlist names are matched in PostgreSQL: `visitor.watch_norm` folds case and accents (unaccent) and sorts the
 * words, so word order does not matter; a trigram GIN index (pg_trgm, with btree_gin for the tenant column) finds
 * candidates, and similarity / levenshtein (fuzzystrmatch) decide and explain. The four extensions are trusted
 * contrib extensions, so the database owner may create them.
 *
 * A roll call is exclusive per site by a partial unique index on the active ones.
 */
export class FrontDesk1795392500000 implements MigrationInterface {
  name = 'FrontDesk1795392500000';

  async up(q: QueryRunner): Promise<void> {
    for (const ext of ['unaccent', 'pg_trgm', 'fuzzystrmatch', 'btree_gin'])
      await q.query(`CREATE EXTENSION IF NOT EXISTS ${ext} WITH SCHEMA public`);
    await q.query(`
      CREATE FUNCTION visitor.watch_norm(t text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN array_to_string(ARRAY(
          SELECT w FROM unnest(regexp_split_to_array(
                   lower(public.unaccent('public.unaccent'::regdictionary, coalesce(t, ''))), '[^[:alnum:]]+')) AS w
           WHERE w <> '' ORDER BY w), ' ')`);

    await q.query(`
      CREATE TABLE visitor.file (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        purpose         text        NOT NULL,
        content_type    text        NOT NULL,
        size            bigint      NOT NULL,
        filename        text,
        status          text        NOT NULL CHECK (status IN ('pending', 'ready', 'rejected')),
        rejected_reason text,
        storage_key     text        NOT NULL,
        visit_id        text,
        visitor_id      text,
        uploaded_at     timestamptz,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX file_tenant_order_idx ON visitor.file (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX file_visitor_idx ON visitor.file (organisation_id, livemode, visitor_id) WHERE visitor_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE visitor.delivery (
        id                    text PRIMARY KEY,
        organisation_id       text        NOT NULL,
        livemode              boolean     NOT NULL,
        site_id               text        NOT NULL,
        recipient_id          text        NOT NULL,
        status                text        NOT NULL CHECK (status IN ('received', 'collected', 'returned')),
        carrier               text,
        tracking_number       text,
        description           text        NOT NULL,
        photo_file_id         text,
        received_at           timestamptz NOT NULL,
        received_by           text,
        collected_at          timestamptz,
        collected_by          text,
        collected_by_name     text,
        signature_file_id     text,
        collection_photo_file_id text,
        returned_at           timestamptz,
        return_reason         text,
        notified_at           timestamptz,
        notified_channel      text,
        created_at            timestamptz NOT NULL,
        updated_at            timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX delivery_tenant_order_idx ON visitor.delivery (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX delivery_site_idx ON visitor.delivery (organisation_id, livemode, site_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX delivery_recipient_idx ON visitor.delivery (organisation_id, livemode, recipient_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX delivery_status_idx ON visitor.delivery (organisation_id, livemode, status, created_at, id)`,
    );

    await q.query(`
      CREATE TABLE visitor.watchlist_entry (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        name            text        NOT NULL,
        aliases         text[]      NOT NULL DEFAULT '{}',
        phone           text,
        email           text,
        company         text,
        reason          text        NOT NULL,
        severity        text        NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
        expires_at      timestamptz,
        created_by      text        NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX watchlist_entry_tenant_order_idx ON visitor.watchlist_entry (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX watchlist_entry_phone_idx ON visitor.watchlist_entry (organisation_id, livemode, phone) WHERE phone IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX watchlist_entry_email_idx ON visitor.watchlist_entry (organisation_id, livemode, lower(email)) WHERE email IS NOT NULL`,
    );
    // One row per name and alias of an entry, normalised once on write.
    await q.query(`
      CREATE TABLE visitor.watchlist_name (
        entry_id        text    NOT NULL REFERENCES visitor.watchlist_entry (id) ON DELETE CASCADE,
        organisation_id text    NOT NULL,
        livemode        boolean NOT NULL,
        kind            text    NOT NULL CHECK (kind IN ('name', 'alias')),
        value           text    NOT NULL,
        norm            text    NOT NULL
      )`);
    await q.query(`CREATE INDEX watchlist_name_entry_idx ON visitor.watchlist_name (entry_id)`);
    await q.query(
      `CREATE INDEX watchlist_name_trgm_idx ON visitor.watchlist_name USING gin (organisation_id, norm gin_trgm_ops)`,
    );
    // Name candidates of a tenant from the trigram index, at a similarity threshold of its own (the `%` operator
    // reads pg_trgm.similarity_threshold, 0.3 by default, which lets common first or last names alone through:
    // thousands of rows to recheck among 100,000 entries). Few rows come back, so callers join entries by key.
    // The planner prices `%` as cheap and may prefer a sequential scan that computes a similarity per row; inside
    // this function only the index is allowed.
    await q.query(`
      CREATE FUNCTION visitor.watch_name_candidates(text, boolean, text)
        RETURNS SETOF visitor.watchlist_name
        LANGUAGE sql STABLE ROWS 20
        SET pg_trgm.similarity_threshold = 0.5
        SET enable_seqscan = off
        AS $$ SELECT * FROM visitor.watchlist_name n
               WHERE n.organisation_id = $1 AND n.livemode = $2 AND n.norm OPERATOR(public.%) $3 $$`);
    await q.query(`
      CREATE TABLE visitor.watchlist_match (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        entry_id        text        NOT NULL,
        visit_id        text        NOT NULL,
        visitor_id      text        NOT NULL,
        field           text        NOT NULL CHECK (field IN ('phone', 'email', 'name')),
        entry_value     text,
        matched_value   text,
        score           real        NOT NULL,
        explanation     text        NOT NULL,
        severity        text        NOT NULL,
        trigger         text        NOT NULL,
        created_at      timestamptz NOT NULL,
        UNIQUE (visit_id, entry_id, field)
      )`);
    await q.query(`CREATE INDEX watchlist_match_visitor_idx ON visitor.watchlist_match (visitor_id)`);
    // The visit's flag: a summary of its matches (no visitor data), shown only to callers with watchlist:read.
    await q.query(`ALTER TABLE visitor.visit ADD COLUMN watchlist jsonb`);
    // Per site: whether a check-in of a visit with a high-severity match waits for approval.
    await q.query(
      `ALTER TABLE visitor.site ADD COLUMN watchlist_holds_check_in boolean NOT NULL DEFAULT false`,
    );

    await q.query(`
      CREATE TABLE visitor.rollcall (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        site_id         text        NOT NULL,
        status          text        NOT NULL CHECK (status IN ('active', 'closed')),
        started_by      text,
        started_at      timestamptz NOT NULL,
        closed_by       text,
        closed_at       timestamptz,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX rollcall_tenant_order_idx ON visitor.rollcall (organisation_id, livemode, created_at, id)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX rollcall_one_active_idx ON visitor.rollcall (organisation_id, livemode, site_id) WHERE status = 'active'`,
    );
    await q.query(`
      CREATE TABLE visitor.rollcall_person (
        rollcall_id     text        NOT NULL REFERENCES visitor.rollcall (id) ON DELETE CASCADE,
        subject_id      text        NOT NULL,
        kind            text        NOT NULL CHECK (kind IN ('visitor', 'employee')),
        name            text,
        visit_id        text,
        status          text        NOT NULL CHECK (status IN ('unaccounted', 'safe', 'missing', 'needs_help')),
        note            text,
        marked_by       text,
        marked_at       timestamptz,
        position        integer     NOT NULL,
        PRIMARY KEY (rollcall_id, subject_id)
      )`);
    await q.query(
      `CREATE INDEX rollcall_person_subject_idx ON visitor.rollcall_person (subject_id) WHERE kind = 'visitor'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE visitor.rollcall_person`);
    await q.query(`DROP TABLE visitor.rollcall`);
    await q.query(`ALTER TABLE visitor.site DROP COLUMN watchlist_holds_check_in`);
    await q.query(`ALTER TABLE visitor.visit DROP COLUMN watchlist`);
    await q.query(`DROP TABLE visitor.watchlist_match`);
    await q.query(`DROP FUNCTION visitor.watch_name_candidates(text, boolean, text)`);
    await q.query(`DROP TABLE visitor.watchlist_name`);
    await q.query(`DROP TABLE visitor.watchlist_entry`);
    await q.query(`DROP TABLE visitor.delivery`);
    await q.query(`DROP TABLE visitor.file`);
    await q.query(`DROP FUNCTION visitor.watch_norm(text)`);
  }
}
