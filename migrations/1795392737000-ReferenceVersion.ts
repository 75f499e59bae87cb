import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change counter per organisation (`visitor.organisation.reference_version`) over the rows a write checks its
 * references against: sites, gates, the people who may host (`active`, `can_host`), visit types, forms and booking
 * types. Triggers bump it in the writer's transaction, so a reader sees the new version exactly when it can see the
 * change. The credential lookup reads it with the key (`published.organisations_plan`), and the checks of visit and
 * booking create keep what they read per process under it (`ReferenceCache`): a change is seen by every process
 * from the next request on. Versions start at the organisation's creation time in milliseconds, so a database
 * restored or re-created under a running process never counts through the versions of the one before it.
 */
export class ReferenceVersion1795392737000 implements MigrationInterface {
  name = 'ReferenceVersion1795392737000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE visitor.organisation ADD COLUMN reference_version bigint NOT NULL
        DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`);
    await q.query(`
      CREATE OR REPLACE VIEW published.organisations_plan AS
        SELECT id, plan, rate_limit_per_minute, history_days, audit_days, ip_allow_list, reference_version
          FROM visitor.organisation`);
    await q.query(`
      CREATE FUNCTION visitor.bump_reference_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE visitor.organisation SET reference_version = reference_version + 1;
        ELSE
          UPDATE visitor.organisation SET reference_version = reference_version + 1
           WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.organisation_id ELSE NEW.organisation_id END;
        END IF;
        RETURN NULL;
      END $$`);
    for (const t of TABLES) {
      const person = t === 'person';
      await q.query(`
        CREATE TRIGGER ${t}_reference_version AFTER INSERT OR DELETE${person ? '' : ' OR UPDATE'} ON visitor.${t}
          FOR EACH ROW EXECUTE FUNCTION visitor.bump_reference_version()`);
      // A person's other columns (name, contact details, sites) are not what a host check reads.
      if (person)
        await q.query(`
          CREATE TRIGGER person_host_reference_version AFTER UPDATE ON visitor.person FOR EACH ROW
            WHEN (OLD.active IS DISTINCT FROM NEW.active OR OLD.can_host IS DISTINCT FROM NEW.can_host
                  OR OLD.organisation_id IS DISTINCT FROM NEW.organisation_id)
            EXECUTE FUNCTION visitor.bump_reference_version()`);
      await q.query(`
        CREATE TRIGGER ${t}_reference_version_truncate AFTER TRUNCATE ON visitor.${t}
          FOR EACH STATEMENT EXECUTE FUNCTION visitor.bump_reference_version()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of TABLES) {
      await q.query(`DROP TRIGGER IF EXISTS ${t}_reference_version ON visitor.${t}`);
      await q.query(`DROP TRIGGER IF EXISTS ${t}_reference_version_truncate ON visitor.${t}`);
    }
    await q.query(`DROP TRIGGER IF EXISTS person_host_reference_version ON visitor.person`);
    await q.query(`DROP FUNCTION visitor.bump_reference_version()`);
    // A view cannot lose a column in place.
    await q.query(`DROP VIEW published.organisations_plan`);
    await q.query(`
      CREATE VIEW published.organisations_plan AS
        SELECT id, plan, rate_limit_per_minute, history_days, audit_days, ip_allow_list FROM visitor.organisation`);
    await q.query(`ALTER TABLE visitor.organisation DROP COLUMN reference_version`);
  }
}

const TABLES = ['site', 'gate', 'person', 'visit_type', 'form', 'booking_type'] as const;
