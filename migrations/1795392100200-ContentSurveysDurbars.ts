import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Surveys (questions, options; private: individual responses and their choices, unlisted and attached surveys)
 * and durbars — live audio rooms (speakers, replays, transcripts with segments; private: listeners, raised
 * hands, stream playlists, moderation flags and speaker attribution of segments).
 */
export class ContentSurveysDurbars1795392100200 implements MigrationInterface {
  name = 'ContentSurveysDurbars1795392100200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content.survey (
        id                text PRIMARY KEY,
        slug              text        NOT NULL UNIQUE,
        title             text        NOT NULL,
        description       text        NOT NULL,
        purpose           text        NOT NULL,
        is_anonymous      boolean     NOT NULL,
        guests_allowed    boolean     NOT NULL,
        result_visibility text        NOT NULL CHECK (result_visibility IN ('public_live','after_close','after_respond')),
        status            text        NOT NULL CHECK (status IN ('draft','open','closed')),
        visibility        text        NOT NULL CHECK (visibility IN ('public','unlisted')),
        attached_to_type  text CHECK (attached_to_type IN ('event','job','community')),
        attached_to_id    text,
        opens_at          timestamptz,
        closes_at         timestamptz,
        category_slug     text        NOT NULL,
        creator_id        text        NOT NULL REFERENCES content.account (id),
        published_at      timestamptz NOT NULL,
        created_at        timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX survey_public_idx ON content.survey (published_at DESC, id DESC)
        WHERE status IN ('open','closed') AND visibility = 'public' AND attached_to_type IS NULL`,
    );
    await q.query(`
      CREATE TABLE content.survey_question (
        id           text PRIMARY KEY,
        survey_id    text    NOT NULL REFERENCES content.survey (id) ON DELETE CASCADE,
        question_key text    NOT NULL,
        input_kind   text    NOT NULL,
        label        text    NOT NULL,
        help_text    text,
        required     boolean NOT NULL,
        position     integer NOT NULL
      )`);
    await q.query(`CREATE INDEX survey_question_survey_idx ON content.survey_question (survey_id, position)`);
    await q.query(`
      CREATE TABLE content.survey_option (
        id          text PRIMARY KEY,
        question_id text    NOT NULL REFERENCES content.survey_question (id) ON DELETE CASCADE,
        option_key  text    NOT NULL,
        label       text    NOT NULL,
        kind        text    NOT NULL CHECK (kind IN ('option','matrix_row','matrix_column')),
        position    integer NOT NULL
      )`);
    await q.query(`CREATE INDEX survey_option_question_idx ON content.survey_option (question_id, position)`);
    await q.query(`
      CREATE TABLE content.survey_response (
        id               text PRIMARY KEY,
        survey_id        text        NOT NULL REFERENCES content.survey (id) ON DELETE CASCADE,
        respondent_id    text        REFERENCES content.account (id),
        respondent_email text,
        free_text        text,
        submitted_at     timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX survey_response_survey_idx ON content.survey_response (survey_id)`);
    await q.query(`
      CREATE TABLE content.survey_response_choice (
        response_id text NOT NULL REFERENCES content.survey_response (id) ON DELETE CASCADE,
        option_id   text NOT NULL REFERENCES content.survey_option (id) ON DELETE CASCADE,
        PRIMARY KEY (response_id, option_id)
      )`);
    await q.query(
      `CREATE INDEX survey_response_choice_option_idx ON content.survey_response_choice (option_id)`,
    );

    await q.query(`
      CREATE TABLE content.durbar (
        id                  text PRIMARY KEY,
        slug                text        NOT NULL UNIQUE,
        title               text        NOT NULL,
        description         text        NOT NULL,
        status              text        NOT NULL CHECK (status IN ('scheduled','live','ended','cancelled')),
        visibility          text        NOT NULL CHECK (visibility IN ('public','unlisted')),
        scheduled_for       timestamptz,
        started_at          timestamptz,
        ended_at            timestamptz,
        is_recorded         boolean     NOT NULL,
        language            text        NOT NULL,
        peak_listener_count integer,
        total_listeners     integer,
        host_handle         text        NOT NULL,
        host_name           text        NOT NULL,
        host_avatar_url     text,
        host_kind           text        NOT NULL,
        host_verified       boolean     NOT NULL,
        stream_playlist_url text,
        created_at          timestamptz NOT NULL,
        search              tsvector GENERATED ALWAYS AS (to_tsvector('simple', title)) STORED
      )`);
    await q.query(
      `CREATE INDEX durbar_search_idx ON content.durbar USING gin (search) WHERE status <> 'cancelled' AND visibility = 'public'`,
    );
    await q.query(`
      CREATE TABLE content.durbar_speaker (
        durbar_id        text    NOT NULL REFERENCES content.durbar (id) ON DELETE CASCADE,
        handle           text    NOT NULL,
        name             text    NOT NULL,
        avatar_url       text,
        kind             text    NOT NULL,
        verified         boolean NOT NULL,
        role             text    NOT NULL,
        speaking_minutes integer NOT NULL,
        position         integer NOT NULL,
        PRIMARY KEY (durbar_id, handle)
      )`);
    await q.query(`
      CREATE TABLE content.durbar_replay (
        durbar_id        text PRIMARY KEY REFERENCES content.durbar (id) ON DELETE CASCADE,
        url              text    NOT NULL,
        duration_seconds integer NOT NULL,
        mime_type        text    NOT NULL,
        upload_status    text    NOT NULL CHECK (upload_status IN ('uploading','ready','failed'))
      )`);
    await q.query(`
      CREATE TABLE content.durbar_transcript (
        durbar_id        text PRIMARY KEY REFERENCES content.durbar (id) ON DELETE CASCADE,
        language         text        NOT NULL,
        duration_seconds integer     NOT NULL,
        status           text        NOT NULL CHECK (status IN ('processing','completed','failed')),
        completed_at     timestamptz
      )`);
    await q.query(`
      CREATE TABLE content.durbar_transcript_segment (
        id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        durbar_id      text    NOT NULL REFERENCES content.durbar_transcript (durbar_id) ON DELETE CASCADE,
        start_ms       integer NOT NULL,
        end_ms         integer NOT NULL,
        text           text    NOT NULL,
        lang           text    NOT NULL,
        confidence     real    NOT NULL,
        speaker_handle text,
        flagged        boolean NOT NULL DEFAULT false
      )`);
    await q.query(
      `CREATE INDEX durbar_segment_idx ON content.durbar_transcript_segment (durbar_id, start_ms) WHERE NOT flagged`,
    );
    await q.query(`
      CREATE TABLE content.durbar_listener (
        durbar_id   text        NOT NULL REFERENCES content.durbar (id) ON DELETE CASCADE,
        handle      text        NOT NULL,
        joined_at   timestamptz NOT NULL,
        hand_raised boolean     NOT NULL DEFAULT false,
        PRIMARY KEY (durbar_id, handle)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'durbar_listener',
      'durbar_transcript_segment',
      'durbar_transcript',
      'durbar_replay',
      'durbar_speaker',
      'durbar',
      'survey_response_choice',
      'survey_response',
      'survey_option',
      'survey_question',
      'survey',
    ])
      await q.query(`DROP TABLE content.${t}`);
  }
}
