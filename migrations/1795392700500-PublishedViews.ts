import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Published views (schema `published`): what a domain offers other domains to read in their own statements,
 * where a hot path must stay one round trip. Each view is its owner's (`published.<owner>_<purpose>`, the
 * `PUBLISHED` map of test/project/table-ownership.e2e-spec.ts), names only the owner's tables and shows only the
 * columns its readers need; readers name the view, never the table. They are simple views, which PostgreSQL
 * inlines into the reading statement, so the readers' plans (and index use) are those of the joins they replace.
 *
 * - organisations_plan: the plan and access limits the /v1 guard chain checks (API-key and OAuth token lookups)
 * - organisations_names: an organisation's display name (the pass page)
 * - organisations_sites, organisations_gates: a site (name, time zone) and its gates, by tenant (POST /v1/visits
 *   checks them; the pass page shows the site)
 * - people_hosts: a person as a visit's host (POST /v1/visits checks them; the pass page shows the name)
 * - visit_types_rules: whether a type is on and open for pre-registration (POST /v1/visits)
 * - forms_versions: each tenant's form versions by kind, the current one the highest (POST /v1/visits checks the
 *   answers against it: `ORDER BY version DESC LIMIT 1` reads one entry of the primary key, backwards; a view that
 *   picked the latest itself, with DISTINCT ON, read and sorted every version)
 */
export class PublishedViews1795392700500 implements MigrationInterface {
  name = 'PublishedViews1795392700500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS published`);
    await q.query(`
      CREATE VIEW published.organisations_plan AS
        SELECT id, plan, rate_limit_per_minute, history_days, audit_days, ip_allow_list FROM visitor.organisation`);
    await q.query(`CREATE VIEW published.organisations_names AS SELECT id, name FROM visitor.organisation`);
    await q.query(`
      CREATE VIEW published.organisations_sites AS
        SELECT id, organisation_id, livemode, name, time_zone FROM visitor.site`);
    await q.query(`
      CREATE VIEW published.organisations_gates AS
        SELECT id, site_id, organisation_id, livemode FROM visitor.gate`);
    await q.query(`
      CREATE VIEW published.people_hosts AS
        SELECT id, organisation_id, livemode, name, active, can_host FROM visitor.person`);
    await q.query(`
      CREATE VIEW published.visit_types_rules AS
        SELECT organisation_id, livemode, key, enabled, pre_registration FROM visitor.visit_type`);
    await q.query(`
      CREATE VIEW published.forms_versions AS
        SELECT organisation_id, livemode, kind, version, schema FROM visitor.form`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const v of [
      'forms_versions',
      'visit_types_rules',
      'people_hosts',
      'organisations_gates',
      'organisations_sites',
      'organisations_names',
      'organisations_plan',
    ])
      await q.query(`DROP VIEW IF EXISTS published.${v}`);
    // Other migrations publish views in the same schema: it goes only when it is empty.
    await q.query(`
      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE n.nspname = 'published') THEN
          DROP SCHEMA published;
        END IF;
      END $$`);
  }
}
