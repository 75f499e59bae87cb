import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth 2.1 authorization server (schema `oauth`): what the engine (oidc-provider) stores through its
 * adapter — grants, codes, access and refresh tokens, sessions, interactions — keyed by a SHA-256 hash of their
 * value (a token is never stored in the clear); registered clients (console and dynamic registration; secrets
 * hashed); each organisation's approval of a client; and the connections (one per grant) admins see and revoke.
 */
export class OAuth1795392600000 implements MigrationInterface {
  name = 'OAuth1795392600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS oauth`);
    await q.query(`
      CREATE TABLE oauth.model (
        kind        text        NOT NULL,
        id_hash     text        NOT NULL,
        payload     jsonb       NOT NULL,
        grant_id    text,
        uid         text,
        expires_at  timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (kind, id_hash)
      )`);
    await q.query(`CREATE INDEX model_grant_idx ON oauth.model (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX model_uid_idx ON oauth.model (uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX model_expires_idx ON oauth.model (expires_at) WHERE expires_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE oauth.client (
        client_id        text PRIMARY KEY,
        name             text        NOT NULL,
        source           text        NOT NULL CHECK (source IN ('console', 'dcr')),
        organisation_id  text,
        redirect_uris    text[]      NOT NULL,
        confidential     boolean     NOT NULL,
        secret_hash      text,
        metadata         jsonb       NOT NULL,
        created_by       text        NOT NULL,
        created_at       timestamptz NOT NULL,
        deleted_at       timestamptz
      )`);
    await q.query(
      `CREATE INDEX client_org_idx ON oauth.client (organisation_id, created_at) WHERE organisation_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE oauth.approval (
        organisation_id text        NOT NULL,
        client_id       text        NOT NULL,
        client_name     text        NOT NULL,
        client_source   text        NOT NULL CHECK (client_source IN ('console', 'dcr', 'metadata_document')),
        status          text        NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
        requested_by    text        NOT NULL,
        requested_at    timestamptz NOT NULL,
        decided_by      text,
        decided_at      timestamptz,
        PRIMARY KEY (organisation_id, client_id)
      )`);
    await q.query(`
      CREATE TABLE oauth.connection (
        grant_id        text PRIMARY KEY,
        organisation_id text        NOT NULL,
        client_id       text        NOT NULL,
        account_id      text        NOT NULL,
        livemode        boolean     NOT NULL,
        scopes          text[]      NOT NULL,
        created_at      timestamptz NOT NULL,
        last_used_at    timestamptz,
        revoked_at      timestamptz
      )`);
    await q.query(
      `CREATE INDEX connection_org_idx ON oauth.connection (organisation_id, client_id, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth.connection`);
    await q.query(`DROP TABLE oauth.approval`);
    await q.query(`DROP TABLE oauth.client`);
    await q.query(`DROP TABLE oauth.model`);
  }
}
