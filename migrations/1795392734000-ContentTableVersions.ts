import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change counter per public content table (`content.table_version`), bumped by a statement-level trigger on
 * every INSERT, UPDATE, DELETE and TRUNCATE of the table, in the writer's transaction: a reader sees a table's
 * new version exactly when it can see the change. The public pipeline reads every table's version in one
 * statement (a few dozen rows) and compares the route's tables to answer `If-None-Match` without running the
 * route's query (see docs/decisions.md,
 * "Conditional public reads from table versions").
 *
 * Every table of schema `content` is counted except the API-key tables (`api_key`, `api_key_use_day`), which the
 * service writes itself on every request and which no public body shows. Versions start at the migration's time in
 * milliseconds, so a table re-created later (a restore into a new database) never counts through the versions of
 * the one before it.
 */
export class ContentTableVersions1795392734000 implements MigrationInterface {
  name = 'ContentTableVersions1795392734000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE content.table_version (table_name text PRIMARY KEY, version bigint NOT NULL)`,
    );
    await q.query(`
      CREATE FUNCTION content.bump_table_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE content.table_version SET version = version + 1 WHERE table_name = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);
    const tables = (await q.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'content'
          AND tablename NOT IN ('api_key', 'api_key_use_day', 'table_version') ORDER BY tablename`,
    )) as { tablename: string }[];
    for (const { tablename: t } of tables) {
      await q.query(
        `INSERT INTO content.table_version (table_name, version)
           VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`,
        [t],
      );
      await q.query(
        `CREATE TRIGGER ${t}_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON content.${t}
           FOR EACH STATEMENT EXECUTE FUNCTION content.bump_table_version()`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const tables = (await q.query(`SELECT table_name FROM content.table_version`)) as {
      table_name: string;
    }[];
    for (const { table_name: t } of tables)
      await q.query(`DROP TRIGGER IF EXISTS ${t}_version ON content.${t}`);
    await q.query(`DROP FUNCTION content.bump_table_version()`);
    await q.query(`DROP TABLE content.table_version`);
  }
}
