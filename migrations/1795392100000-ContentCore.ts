import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The public content API's first tables (schema `content`): public API keys and their usage, platform
 * accounts (the private side: e-mails, phones), campaigns with updates and donations, petitions with
 * signatures. Private columns live beside public ones, as the platform holds them; public repositories select
 * explicit column lists.
 */
export class ContentCore1795392100000 implements MigrationInterface {
  name = 'ContentCore1795392100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content.api_key (
        id           text PRIMARY KEY,
        name         text        NOT NULL,
        lookup       text        NOT NULL UNIQUE,
        key_hash     bytea       NOT NULL,
        last4        text        NOT NULL,
        created_at   timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at   timestamptz
      )`);
    await q.query(`
      CREATE TABLE content.api_key_use_day (
        key_id   text   NOT NULL REFERENCES content.api_key (id) ON DELETE CASCADE,
        day      date   NOT NULL,
        requests bigint NOT NULL,
        PRIMARY KEY (key_id, day)
      )`);
    await q.query(`
      CREATE TABLE content.account (
        id             text PRIMARY KEY,
        username       text        NOT NULL UNIQUE,
        full_name      text,
        email          text        NOT NULL,
        phone          text,
        bio            text,
        avatar_url     text,
        country        text,
        account_type   text,
        public_profile boolean     NOT NULL DEFAULT false,
        created_at     timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.campaign (
        id                text PRIMARY KEY,
        slug              text        NOT NULL UNIQUE,
        title             text        NOT NULL,
        description       text        NOT NULL,
        category          text        NOT NULL,
        status            text        NOT NULL CHECK (status IN ('draft','pending_review','active','won','paused','closed','rejected')),
        goal_amount       numeric(14,2) NOT NULL,
        raised_amount     numeric(14,2) NOT NULL DEFAULT 0,
        currency          text        NOT NULL,
        image_url         text,
        country           text,
        target_country    text,
        organizer_id      text        NOT NULL REFERENCES content.account (id),
        internal_notes    text,
        goal_reached_at   timestamptz,
        deadline          timestamptz,
        created_at        timestamptz NOT NULL
      )`);
    // Public lists: newest first, filtered by status set, category and target country.
    await q.query(
      `CREATE INDEX campaign_public_idx ON content.campaign (created_at DESC, id DESC) WHERE status IN ('active','won')`,
    );
    await q.query(
      `CREATE INDEX campaign_public_category_idx ON content.campaign (category, created_at DESC, id DESC) WHERE status IN ('active','won')`,
    );
    await q.query(
      `CREATE INDEX campaign_public_country_idx ON content.campaign (target_country, created_at DESC, id DESC) WHERE status IN ('active','won')`,
    );
    await q.query(`
      CREATE TABLE content.campaign_update (
        id           text PRIMARY KEY,
        campaign_id  text        NOT NULL REFERENCES content.campaign (id) ON DELETE CASCADE,
        author_id    text        NOT NULL REFERENCES content.account (id),
        title        text,
        content_html text        NOT NULL,
        media_urls   text[]      NOT NULL DEFAULT '{}',
        created_at   timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX campaign_update_campaign_idx ON content.campaign_update (campaign_id, created_at DESC)`,
    );
    await q.query(`
      CREATE TABLE content.donation (
        id          text PRIMARY KEY,
        campaign_id text          NOT NULL REFERENCES content.campaign (id) ON DELETE CASCADE,
        donor_id    text          REFERENCES content.account (id),
        donor_name  text          NOT NULL,
        donor_email text          NOT NULL,
        amount      numeric(14,2) NOT NULL,
        message     text,
        anonymous   boolean       NOT NULL DEFAULT false,
        created_at  timestamptz   NOT NULL
      )`);
    await q.query(`CREATE INDEX donation_campaign_idx ON content.donation (campaign_id)`);
    await q.query(`
      CREATE TABLE content.petition (
        id               text PRIMARY KEY,
        slug             text        NOT NULL UNIQUE,
        title            text        NOT NULL,
        description      text        NOT NULL,
        category         text        NOT NULL,
        status           text        NOT NULL CHECK (status IN ('draft','active','closed','victory','removed')),
        petition_target  integer,
        signatures_count integer     NOT NULL DEFAULT 0,
        image_url        text,
        country          text,
        target_country   text,
        creator_id       text        NOT NULL REFERENCES content.account (id),
        created_at       timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX petition_public_idx ON content.petition (created_at DESC, id DESC) WHERE status = 'active'`,
    );
    await q.query(
      `CREATE INDEX petition_public_category_idx ON content.petition (category, created_at DESC, id DESC) WHERE status = 'active'`,
    );
    await q.query(
      `CREATE INDEX petition_public_country_idx ON content.petition (target_country, created_at DESC, id DESC) WHERE status = 'active'`,
    );
    await q.query(`
      CREATE TABLE content.signature (
        id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        petition_id  text        NOT NULL REFERENCES content.petition (id) ON DELETE CASCADE,
        signer_id    text        REFERENCES content.account (id),
        signer_name  text        NOT NULL,
        signer_email text        NOT NULL,
        comment      text,
        created_at   timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX signature_petition_created_idx ON content.signature (petition_id, created_at)`,
    );
    await q.query(
      `CREATE INDEX signature_signer_idx ON content.signature (signer_id) WHERE signer_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'signature',
      'petition',
      'donation',
      'campaign_update',
      'campaign',
      'account',
      'api_key_use_day',
      'api_key',
    ])
      await q.query(`DROP TABLE content.${t}`);
  }
}
