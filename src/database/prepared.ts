import type { DataSource } from 'typeorm';

/**
 * A named prepared statement on the driver's pool: PostgreSQL parses and plans it once per connection instead
 * of once per call. For hot paths (credential lookup per request, webhook claims).
 */
export async function preparedQuery<T>(
  ds: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = (
    ds.driver as unknown as {
      master: { query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }> };
    }
  ).master;
  return (await pool.query({ name, text, values })).rows;
}
