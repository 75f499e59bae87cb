import type { Client } from 'pg';

/**
 * The migrated schema as text, one line per object, sorted: tables and views with their columns (type,
 * nullability, default), constraints (as PostgreSQL prints them), indexes, triggers, functions, views with their
 * query and extensions of the application's schemas. Compared with the committed `migrations/schema.snapshot.txt`,
 * it makes every migration's effect on the schema visible in review and fails the suite when migrations and
 * snapshot disagree.
 */
export async function schemaSnapshot(db: Client): Promise<string> {
  const apps = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%'
    AND n.nspname NOT LIKE 'pg_toast_temp%'`;
  const q = async (sql: string) => (await db.query<{ line: string }>(sql)).rows.map((r) => r.line);
  const sections: [string, string[]][] = [
    [
      'extensions',
      await q(`SELECT e.extname AS line FROM pg_extension e WHERE e.extname <> 'plpgsql' ORDER BY 1`),
    ],
    ['schemas', await q(`SELECT n.nspname AS line FROM pg_namespace n WHERE ${apps} ORDER BY 1`)],
    [
      'columns',
      await q(`SELECT format('%s.%s.%s %s%s%s', n.nspname, c.relname, a.attname,
                      format_type(a.atttypid, a.atttypmod),
                      CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                      CASE WHEN d.adbin IS NOT NULL THEN ' default ' || pg_get_expr(d.adbin, d.adrelid)
                           WHEN a.attidentity <> '' THEN ' identity' ELSE '' END) AS line
                 FROM pg_attribute a
                 JOIN pg_class c ON c.oid = a.attrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE ${apps} AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY n.nspname, c.relname, a.attnum`),
    ],
    [
      'constraints',
      // NOT NULL is shown with its column (PostgreSQL 18 also lists it here as contype 'n').
      await q(`SELECT format('%s.%s %s %s', n.nspname, c.relname, k.conname, pg_get_constraintdef(k.oid)) AS line
                 FROM pg_constraint k
                 JOIN pg_class c ON c.oid = k.conrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE ${apps} AND k.contype <> 'n'
                ORDER BY 1`),
    ],
    [
      'indexes',
      await q(`SELECT format('%s.%s', n.nspname, pg_get_indexdef(i.indexrelid)) AS line
                 FROM pg_index i
                 JOIN pg_class c ON c.oid = i.indexrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE ${apps}
                ORDER BY 1`),
    ],
    [
      'triggers',
      await q(`SELECT pg_get_triggerdef(t.oid) AS line
                 FROM pg_trigger t
                 JOIN pg_class c ON c.oid = t.tgrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE ${apps} AND NOT t.tgisinternal
                ORDER BY 1`),
    ],
    [
      'functions',
      await q(`SELECT format('%s.%s(%s) returns %s', n.nspname, p.proname, pg_get_function_arguments(p.oid),
                      pg_get_function_result(p.oid)) AS line
                 FROM pg_proc p
                 JOIN pg_namespace n ON n.oid = p.pronamespace
                 LEFT JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
                WHERE ${apps} AND d.objid IS NULL
                ORDER BY 1`),
    ],
    [
      'views',
      // with its query, on one line: what a published view shows is part of the schema others rely on
      await q(`SELECT format('%s.%s %s %s', n.nspname, c.relname, c.relkind,
                      regexp_replace(trim(pg_get_viewdef(c.oid)), '\\s+', ' ', 'g')) AS line
                 FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE ${apps} AND c.relkind IN ('v', 'm')
                ORDER BY 1`),
    ],
  ];
  // A view's query without its columns' table or alias qualifiers (schema names stay): PostgreSQL 15 writes
  // `SELECT event.id FROM visitor.event`, 18 `SELECT id FROM visitor.event`, and the tests run on either (the
  // machine's server through DATABASE_URL, or the embedded one).
  const schemas = new Set(sections.find(([name]) => name === 'schemas')![1]);
  const views = sections.find(([name]) => name === 'views')!;
  views[1] = views[1].map((line) => {
    const at = line.indexOf(' ', line.indexOf(' ') + 1);
    return (
      line.slice(0, at) +
      line.slice(at).replace(/\b([a-z_][a-z0-9_]*)\.(?=[a-z_])/g, (m, q: string) => (schemas.has(q) ? m : ''))
    );
  });
  return sections.map(([name, lines]) => `## ${name}\n${lines.join('\n')}\n`).join('\n');
}
