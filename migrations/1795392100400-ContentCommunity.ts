import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Community resources: actors (private: e-mail, phone, non-public actors), groups (private: members, private and
 * secret groups), posts with attachments (private: moderation notes, hidden posts, posts in non-public groups),
 * reviewed entities (private: owner contact, hidden entities, individual reviews) and safety hazards (private:
 * reporter identity and phone, unverified and rejected reports).
 */
export class ContentCommunity1795392100400 implements MigrationInterface {
  name = 'ContentCommunity1795392100400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content.actor (
        handle       text PRIMARY KEY,
        display_name text        NOT NULL,
        kind         text        NOT NULL CHECK (kind IN ('person','organization','government','business')),
        bio          text,
        avatar_url   text,
        verified     boolean     NOT NULL DEFAULT false,
        country      text,
        is_public    boolean     NOT NULL,
        email        text        NOT NULL,
        phone        text,
        created_at   timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.community_group (
        slug         text PRIMARY KEY,
        name         text        NOT NULL,
        description  text,
        category     text        NOT NULL,
        avatar_url   text,
        member_count integer     NOT NULL DEFAULT 0,
        visibility   text        NOT NULL CHECK (visibility IN ('public','private','secret')),
        created_at   timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.group_member (
        group_slug   text NOT NULL REFERENCES content.community_group (slug) ON DELETE CASCADE,
        actor_handle text NOT NULL REFERENCES content.actor (handle) ON DELETE CASCADE,
        role         text NOT NULL,
        PRIMARY KEY (group_slug, actor_handle)
      )`);
    await q.query(`
      CREATE TABLE content.post (
        id               text PRIMARY KEY,
        author_handle    text        NOT NULL REFERENCES content.actor (handle),
        body             text        NOT NULL,
        status           text        NOT NULL CHECK (status IN ('published','hidden','deleted')),
        group_slug       text REFERENCES content.community_group (slug),
        like_count       integer     NOT NULL DEFAULT 0,
        comment_count    integer     NOT NULL DEFAULT 0,
        moderation_notes text,
        created_at       timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX post_public_idx ON content.post (created_at DESC, id DESC) WHERE status = 'published'`,
    );
    await q.query(`
      CREATE TABLE content.post_attachment (
        post_id  text    NOT NULL REFERENCES content.post (id) ON DELETE CASCADE,
        position integer NOT NULL,
        type     text    NOT NULL,
        title    text    NOT NULL,
        url      text    NOT NULL,
        PRIMARY KEY (post_id, position)
      )`);
    await q.query(`
      CREATE TABLE content.review_entity (
        slug         text PRIMARY KEY,
        name         text         NOT NULL,
        kind         text         NOT NULL,
        category     text         NOT NULL,
        location     text,
        country      text,
        rating       numeric(3,2),
        review_count integer      NOT NULL DEFAULT 0,
        is_claimed   boolean      NOT NULL DEFAULT false,
        is_verified  boolean      NOT NULL DEFAULT false,
        status       text         NOT NULL CHECK (status IN ('published','hidden')),
        owner_id     text REFERENCES content.account (id),
        owner_email  text,
        created_at   timestamptz  NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.review (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        entity_slug   text        NOT NULL REFERENCES content.review_entity (slug) ON DELETE CASCADE,
        reviewer_name text        NOT NULL,
        reviewer_email text       NOT NULL,
        stars         integer     NOT NULL,
        body          text,
        created_at    timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.safety_hazard (
        case_number    text PRIMARY KEY,
        title          text        NOT NULL,
        description    text        NOT NULL,
        hazard_type    text        NOT NULL,
        severity       text        NOT NULL CHECK (severity IN ('low','medium','high','critical')),
        status         text        NOT NULL CHECK (status IN ('reported','verified','resolved','rejected')),
        location       text,
        country        text,
        reported_at    timestamptz NOT NULL,
        resolved_at    timestamptz,
        reporter_id    text REFERENCES content.account (id),
        reporter_phone text
      )`);
    await q.query(
      `CREATE INDEX safety_hazard_public_idx ON content.safety_hazard (reported_at DESC, case_number DESC) WHERE status IN ('verified','resolved')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'safety_hazard',
      'review',
      'review_entity',
      'post_attachment',
      'post',
      'group_member',
      'community_group',
      'actor',
    ])
      await q.query(`DROP TABLE content.${t}`);
  }
}
