import type { DataSource } from 'typeorm';

/**
 * A public list query: the visibility rule and filters as a WHERE clause with numbered parameters, then one
 * page of rows and the total, run in parallel. Every public list repository builds its lists with it.
 */
export class PublicQuery {
  private readonly params: unknown[] = [];
  private readonly where: string[];

  /** `visibility`: the SQL condition that makes a row public (always applied). */
  constructor(visibility: string) {
    this.where = [visibility];
  }

  /** Adds `$n` for `value` and returns it. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds a condition built with `param` (skipped when `value` is undefined). */
  filter<V>(value: V | undefined, condition: (p: string) => string): this {
    if (value !== undefined) this.where.push(condition(this.param(value)));
    return this;
  }

  async page<T>(
    ds: DataSource,
    q: { select: string; from: string; orderBy: string },
    limit: number,
    offset: number,
  ): Promise<{ rows: T[]; total: number }> {
    const w = this.where.join(' AND ');
    const n = this.params.length;
    const [rows, count] = await Promise.all([
      ds.query(
        `SELECT ${q.select} FROM ${q.from} WHERE ${w} ORDER BY ${q.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...this.params, limit, offset],
      ) as Promise<T[]>,
      ds.query(`SELECT count(*)::int AS n FROM ${q.from} WHERE ${w}`, this.params) as Promise<
        { n: number }[]
      >,
    ]);
    return { rows, total: count[0].n };
  }
}
