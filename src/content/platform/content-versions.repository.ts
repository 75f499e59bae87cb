import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';

/** Reads the change counters of content tables (content.table_version). */
@Injectable()
export class ContentVersionsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /**
   * The versions of `tables` (sorted names) as one string, `"41.7.1203"`, from one prepared statement over the
   * primary key; null when one of them has no version row (a table without a counter cannot vouch for anything).
   */
  async read(tables: readonly string[]): Promise<string | null> {
    const [r] = await preparedQuery<{ n: number; v: string | null }>(
      this.ds,
      'content-table-versions',
      `SELECT count(*)::int AS n, string_agg(version::text, '.' ORDER BY table_name) AS v
         FROM content.table_version WHERE table_name = ANY($1::text[])`,
      [tables],
    );
    return r && r.n === tables.length ? r.v : null;
  }
}
