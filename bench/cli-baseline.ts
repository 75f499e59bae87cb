/**
 * The baseline of `npm run bench -- cli`: the least any command reading the database does — start node, connect to
 * PostgreSQL (DATABASE_URL) with `pg`, run one query (the organisation's keys, argv[2]), print JSON, exit.
 */
import { Client } from 'pg';

async function main(): Promise<void> {
  const c = new Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  const r = await c.query('SELECT id, name FROM visitor.api_key WHERE organisation_id = $1', [
    process.argv[2],
  ]);
  process.stdout.write(`${JSON.stringify({ data: r.rows }, null, 2)}\n`);
  await c.end();
}

void main();
