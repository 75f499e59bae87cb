import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The visitor API's platform layer: organisations (one row, two mode partitions), sites and gates per mode,
 * console accounts and sessions, API keys (hashed), custom scopes, idempotency keys and the audit trail.
 */
export class VisitorPlatform1795392200000 implements MigrationInterface {
  name = 'VisitorPlatform1795392200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS visitor`);
    await q.query(`
      CREATE TABLE visitor.organisation (
        id                    text PRIMARY KEY,
        name                  text        NOT NULL,
        slug                  text        NOT NULL UNIQUE,
        plan                  text        NOT NULL CHECK (plan IN ('free','starter','growth','pro','enterprise')),
        country               text        NOT NULL,
        time_zone             text        NOT NULL,
        wallet_amount         bigint      NOT NULL DEFAULT 0,
        wallet_currency       text        NOT NULL,
        rate_limit_per_minute integer,
        history_days          integer,
        audit_days            integer,
        ip_allow_list         cidr[]      NOT NULL DEFAULT '{}',
        created_at            timestamptz NOT NULL,
        updated_at            timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE visitor.site (
        id                     text PRIMARY KEY,
        organisation_id        text        NOT NULL,
        livemode               boolean     NOT NULL,
        name                   text        NOT NULL,
        time_zone              text        NOT NULL,
        requires_host_approval boolean     NOT NULL DEFAULT false,
        created_at             timestamptz NOT NULL,
        updated_at             timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX site_tenant_order_idx ON visitor.site (organisation_id, livemode, created_at, id)`,
    );
    await q.query(`
      CREATE TABLE visitor.gate (
        id              text PRIMARY KEY,
        site_id         text        NOT NULL REFERENCES visitor.site (id) ON DELETE CASCADE,
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        name            text        NOT NULL,
        position        integer     NOT NULL,
        created_at      timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX gate_site_idx ON visitor.gate (site_id, position)`);
    await q.query(`
      CREATE TABLE visitor.console_account (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL REFERENCES visitor.organisation (id),
        email           text        NOT NULL,
        name            text        NOT NULL,
        role            text        NOT NULL CHECK (role IN ('owner','admin','member','support')),
        password_hash   text        NOT NULL,
        disabled_at     timestamptz,
        last_sign_in_at timestamptz,
        created_at      timestamptz NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX console_account_email_uq ON visitor.console_account (lower(email))`);
    await q.query(`
      CREATE TABLE visitor.console_session (
        token_hash   text PRIMARY KEY,
        account_id   text        NOT NULL REFERENCES visitor.console_account (id) ON DELETE CASCADE,
        created_at   timestamptz NOT NULL,
        expires_at   timestamptz NOT NULL,
        revoked_at   timestamptz
      )`);
    await q.query(`
      CREATE TABLE visitor.api_key (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL REFERENCES visitor.organisation (id),
        livemode        boolean     NOT NULL,
        kind            text        NOT NULL CHECK (kind IN ('secret','publishable')),
        name            text        NOT NULL,
        lookup          text        NOT NULL UNIQUE,
        secret_hash     bytea       NOT NULL,
        last4           text        NOT NULL,
        scopes          text[]      NOT NULL,
        created_by      text        NOT NULL,
        created_at      timestamptz NOT NULL,
        expires_at      timestamptz,
        last_used_at    timestamptz,
        revoked_at      timestamptz
      )`);
    await q.query(`CREATE INDEX api_key_org_idx ON visitor.api_key (organisation_id, created_at, id)`);
    await q.query(`
      CREATE TABLE visitor.api_key_use_day (
        key_id text NOT NULL,
        day    date NOT NULL,
        PRIMARY KEY (key_id, day)
      )`);
    await q.query(`
      CREATE TABLE visitor.custom_scope (
        organisation_id text        NOT NULL REFERENCES visitor.organisation (id),
        name            text        NOT NULL,
        description     text        NOT NULL DEFAULT '',
        grants          text[]      NOT NULL,
        created_at      timestamptz NOT NULL,
        PRIMARY KEY (organisation_id, name)
      )`);
    await q.query(`
      CREATE TABLE visitor.idempotency_key (
        organisation_id text        NOT NULL,
        livemode        boolean     NOT NULL,
        key             uuid        NOT NULL,
        request_hash    text        NOT NULL,
        state           text        NOT NULL CHECK (state IN ('running','done')),
        locked_until    timestamptz NOT NULL,
        response_status integer,
        response_type   text,
        response_body   text,
        created_at      timestamptz NOT NULL,
        PRIMARY KEY (organisation_id, livemode, key)
      )`);
    await q.query(`CREATE INDEX idempotency_key_created_idx ON visitor.idempotency_key (created_at)`);
    await q.query(`
      CREATE TABLE visitor.audit_event (
        id              text PRIMARY KEY,
        organisation_id text        NOT NULL,
        livemode        boolean,
        action          text        NOT NULL,
        actor_type      text        NOT NULL,
        actor_id        text,
        target_type     text,
        target_id       text,
        ip              text,
        request_id      text,
        data            jsonb       NOT NULL DEFAULT '{}',
        created_at      timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX audit_event_org_order_idx ON visitor.audit_event (organisation_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'audit_event',
      'idempotency_key',
      'custom_scope',
      'api_key_use_day',
      'api_key',
      'console_session',
      'console_account',
      'gate',
      'site',
      'organisation',
    ])
      await q.query(`DROP TABLE visitor.${t}`);
  }
}
