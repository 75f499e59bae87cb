import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read-only views an owning domain publishes for another domain's hot-path statement (schema `published`, one
 * view per purpose, named `<owner>_<purpose>`, only the columns readers need): the webhook claim reads the event's
 * body (`events_body`) in its one statement (the plan it checks, and a new booking's site time zone, come from the
 * organisations' views of migration 1795392700500).
 * Readers name the view, never the owner's table; nothing writes to a view
 * (test/project/table-ownership.e2e-spec.ts). Simple views: PostgreSQL inlines them, so the plans are the ones the
 * statements had when they joined the tables.
 */
export class PublishedEventsOrganisations1795392700300 implements MigrationInterface {
  name = 'PublishedEventsOrganisations1795392700300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS published`);
    await q.query(`CREATE VIEW published.events_body AS SELECT id, body FROM visitor.event`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW published.events_body`);
    // the schema stays: other domains' views may live in it
  }
}
