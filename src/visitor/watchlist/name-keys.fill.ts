import { nameKeys } from './name-match';

/**
 * Fills `watchlist_name.keys` of names written without them (by migration 1795392500200 for names that existed
 * before it, by benches that seed names in SQL), 1,000 distinct names per statement.
 */
export async function fillNameKeys(
  query: (sql: string, params?: unknown[]) => Promise<unknown>,
): Promise<void> {
  const rows = (await query(`SELECT DISTINCT value FROM visitor.watchlist_name WHERE keys = '{}'`)) as {
    value: string;
  }[];
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await query(
      `UPDATE visitor.watchlist_name n SET keys = ARRAY(SELECT jsonb_array_elements_text(k.keys))
         FROM unnest($1::text[], $2::jsonb[]) AS k(value, keys) WHERE n.value = k.value`,
      [chunk.map((r) => r.value), chunk.map((r) => JSON.stringify(nameKeys(r.value)))],
    );
  }
}
