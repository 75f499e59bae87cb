import type { DataSource, EntityManager } from 'typeorm';

/** What runs a statement: the pool (a DataSource) or a transaction's manager (a UnitOfWork's `manager`). */
export type Sql = Pick<DataSource | EntityManager, 'query'>;

/**
 * The rows a reading statement returns, typed by the caller's row interface (`SELECT`, `INSERT … RETURNING`,
 * `WITH … SELECT`): TypeORM answers those with the rows themselves.
 */
export async function rows<T>(on: Sql, text: string, values: unknown[] = []): Promise<T[]> {
  return (await on.query(text, values)) as T[];
}

/** The first row, or null. */
export async function row<T>(on: Sql, text: string, values: unknown[] = []): Promise<T | null> {
  return (await rows<T>(on, text, values))[0] ?? null;
}

/**
 * A changing statement (`UPDATE` or `DELETE`, with or without `RETURNING`): TypeORM's postgres driver answers
 * those with `[rows, affected]`, which each caller used to cast by hand; this names both.
 */
export async function change<T = never>(
  on: Sql,
  text: string,
  values: unknown[] = [],
): Promise<{ rows: T[]; affected: number }> {
  const [returned, affected] = (await on.query(text, values)) as [T[], number];
  return { rows: returned, affected };
}
