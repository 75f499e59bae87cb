import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read-only views that owning domains publish for statements of other domains that must stay one round trip
 * (docs/decisions.md, "Published views"): the reader's SQL names the view, never the owner's table, and the view
 * carries only the columns its readers need. Owners (test/project/table-ownership.e2e-spec.ts, `PUBLISHED`):
 * - `published.people_staff` (people): who works where, for attendance's timesheets and export and roll calls'
 *   employee rows; no contact details, no answers.
 * (attendance reads a site's name and time zone from `published.organisations_sites`, migration 1795392700500.)
 * - `published.visits_checked_in` (visits): who is checked in where now, with the visitor's name, for a roll
 *   call's visitor rows (the name is null once the visitor is erased, as in the visitor record).
 */
export class PublishedStaffSitesVisits1795392710000 implements MigrationInterface {
  name = 'PublishedStaffSitesVisits1795392710000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS published`);
    await q.query(`
      CREATE VIEW published.people_staff AS
        SELECT p.id, p.organisation_id, p.livemode, p.name, p.employee_number, p.department, p.active
          FROM visitor.person p`);
    await q.query(`
      CREATE VIEW published.visits_checked_in AS
        SELECT v.id AS visit_id, v.organisation_id, v.livemode, v.site_id, v.visitor_id, vr.name AS visitor_name,
               v.checked_in_at
          FROM visitor.visit v
          JOIN visitor.visitor vr ON vr.id = v.visitor_id
         WHERE v.status = 'checked_in'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW published.visits_checked_in`);
    await q.query(`DROP VIEW published.people_staff`);
    // other domains' views may live in the schema too: it goes only when this migration's were the last
    await q.query(`
      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                        WHERE n.nspname = 'published') THEN
          DROP SCHEMA published;
        END IF;
      END $$`);
  }
}
