import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change counter per organisation (`visitor.organisation.reference_version`) over the rows a write checks its
 * references against: sites, gates, the people who may host (`active`, `can_host`), visit types, forms and booking
 * types. Statement triggers bump it in the writer's transaction (once per organisation and statement), so a reader
 * sees the new version exactly when it can see the change. The credential lookup reads it with the key
 * (`published.organisations_plan`), and the checks of visit and booking create keep what they read per process under
 * it (`ReferenceCache`): a change is seen by every process from the next request on. Versions start at the
 * organisation's creation time in milliseconds and a bump sets at least the current time in milliseconds, so a
 * database restored or re-created under a running process does not count through versions that process has seen
 * (as long as the clock moves forward).
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
    // Bumped to at least the current time in milliseconds, so versions keep growing with the clock: after a restore
    // of an older backup, the next change jumps past every version a running process kept reads under.
    const bump = (where: string) => `
      UPDATE visitor.organisation
         SET reference_version = greatest(reference_version + 1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
       ${where}`;
    const fn = async (name: string, where: string) =>
      q.query(`
        CREATE FUNCTION visitor.${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${bump(where)}; RETURN NULL; END $$`);
    // Statement-level, from the transition tables: one bump per organisation and statement, however many rows.
    await fn('reference_rows_inserted', 'WHERE id IN (SELECT organisation_id FROM new_rows)');
    await fn('reference_rows_deleted', 'WHERE id IN (SELECT organisation_id FROM old_rows)');
    await fn(
      'reference_rows_updated',
      'WHERE id IN (SELECT organisation_id FROM old_rows UNION SELECT organisation_id FROM new_rows)',
    );
    // A person counts when what a host check reads changed (who, where, active, may host), not their name or contacts.
    await fn(
      'reference_hosts_updated',
      `WHERE id IN (SELECT organisation_id FROM (
         (SELECT id, organisation_id, livemode, active, can_host FROM new_rows
          EXCEPT SELECT id, organisation_id, livemode, active, can_host FROM old_rows)
         UNION ALL
         (SELECT id, organisation_id, livemode, active, can_host FROM old_rows
          EXCEPT SELECT id, organisation_id, livemode, active, can_host FROM new_rows)) changed)`,
    );
    await fn('reference_rows_truncated', '');
    for (const t of TABLES) {
      const trigger = (event: string, referencing: string, name: string) =>
        q.query(`
          CREATE TRIGGER ${t}_reference_${event.toLowerCase()} AFTER ${event} ON visitor.${t}
            ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION visitor.${name}()`);
      await trigger('INSERT', 'REFERENCING NEW TABLE AS new_rows', 'reference_rows_inserted');
      await trigger('DELETE', 'REFERENCING OLD TABLE AS old_rows', 'reference_rows_deleted');
      await trigger(
        'UPDATE',
        'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows',
        t === 'person' ? 'reference_hosts_updated' : 'reference_rows_updated',
      );
      await trigger('TRUNCATE', '', 'reference_rows_truncated');
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of TABLES)
      for (const event of ['insert', 'delete', 'update', 'truncate'])
        await q.query(`DROP TRIGGER IF EXISTS ${t}_reference_${event} ON visitor.${t}`);
    for (const name of [
      'reference_rows_inserted',
      'reference_rows_deleted',
      'reference_rows_updated',
      'reference_hosts_updated',
      'reference_rows_truncated',
    ])
      await q.query(`DROP FUNCTION IF EXISTS visitor.${name}()`);
    // A view cannot lose a column in place.
    await q.query(`DROP VIEW published.organisations_plan`);
    await q.query(`
      CREATE VIEW published.organisations_plan AS
        SELECT id, plan, rate_limit_per_minute, history_days, audit_days, ip_allow_list FROM visitor.organisation`);
    await q.query(`ALTER TABLE visitor.organisation DROP COLUMN reference_version`);
  }
}

const TABLES = ['site', 'gate', 'person', 'visit_type', 'form', 'booking_type'] as const;
