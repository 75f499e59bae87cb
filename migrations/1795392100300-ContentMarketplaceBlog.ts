import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marketplace listings (packages, categories; private: provider identity and contact details, suspended and
 * draft listings) and the blog (posts and categories; private: authors, drafts).
 */
export class ContentMarketplaceBlog1795392100300 implements MigrationInterface {
  name = 'ContentMarketplaceBlog1795392100300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE content.marketplace_category (
        id       text PRIMARY KEY,
        slug     text    NOT NULL UNIQUE,
        name     text    NOT NULL,
        kind     text    NOT NULL CHECK (kind IN ('service','goods')),
        position integer NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.listing (
        id                   text PRIMARY KEY,
        slug                 text UNIQUE,
        title                text        NOT NULL,
        description          text,
        listing_type         text        NOT NULL CHECK (listing_type IN ('service','goods')),
        category_slugs       text[]      NOT NULL DEFAULT '{}',
        price_min_minor      bigint,
        price_max_minor      bigint,
        currency             text        NOT NULL,
        location             text,
        rating               numeric(3,2),
        review_count         integer     NOT NULL DEFAULT 0,
        is_verified          boolean     NOT NULL DEFAULT false,
        is_featured          boolean     NOT NULL DEFAULT false,
        cover_url            text,
        supports_campaign_id text REFERENCES content.campaign (id),
        portfolio_urls       text[]      NOT NULL DEFAULT '{}',
        languages            text[]      NOT NULL DEFAULT '{}',
        status               text        NOT NULL CHECK (status IN ('draft','active','suspended')),
        provider_id          text        NOT NULL REFERENCES content.account (id),
        provider_phone       text,
        provider_email       text,
        provider_whatsapp    text,
        created_at           timestamptz NOT NULL,
        search               tsvector GENERATED ALWAYS AS (
                               to_tsvector('simple', title || ' ' || coalesce(description, '') || ' ' || coalesce(location, ''))
                             ) STORED
      )`);
    await q.query(
      `CREATE INDEX listing_search_idx ON content.listing USING gin (search) WHERE status = 'active'`,
    );
    await q.query(
      `CREATE INDEX listing_category_idx ON content.listing USING gin (category_slugs) WHERE status = 'active'`,
    );
    await q.query(
      `CREATE INDEX listing_public_idx ON content.listing (is_featured DESC, created_at DESC, id DESC) WHERE status = 'active'`,
    );
    await q.query(`
      CREATE TABLE content.listing_package (
        id            text PRIMARY KEY,
        listing_id    text    NOT NULL REFERENCES content.listing (id) ON DELETE CASCADE,
        name          text,
        price_minor   bigint,
        currency      text,
        description   text,
        delivery_days integer,
        position      integer NOT NULL
      )`);
    await q.query(
      `CREATE INDEX listing_package_listing_idx ON content.listing_package (listing_id, position)`,
    );
    await q.query(`
      CREATE TABLE content.blog_category (
        id   text PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL
      )`);
    await q.query(`
      CREATE TABLE content.blog_post (
        id                 text PRIMARY KEY,
        slug               text        NOT NULL UNIQUE,
        title              text        NOT NULL,
        excerpt            text,
        content_html       text        NOT NULL,
        status             text        NOT NULL CHECK (status IN ('draft','published','archived')),
        published_at       timestamptz,
        featured_image_url text,
        category_id        text REFERENCES content.blog_category (id),
        author_id          text        NOT NULL REFERENCES content.account (id),
        editor_notes       text,
        created_at         timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX blog_post_public_idx ON content.blog_post (published_at DESC, id DESC) WHERE status = 'published'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['blog_post', 'blog_category', 'listing_package', 'listing', 'marketplace_category'])
      await q.query(`DROP TABLE content.${t}`);
  }
}
