import pg from 'pg';

export default async function globalTeardown() {
  // Named by both database tiers: the first call tears down, the second finds nothing left.
  if (globalThis.__GATEHOUSE_TEST_TORN_DOWN__) return;
  globalThis.__GATEHOUSE_TEST_TORN_DOWN__ = true;
  const run = process.env.TEST_RUN_ID;
  const url = process.env.TEST_ADMIN_DATABASE_URL;
  if (run && url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `gh\\_${run}\\_%`,
      ]);
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
  const server = globalThis.__GATEHOUSE_TEST_PG__;
  if (server) await server.stop();
}
