import { Inject, Injectable, SetMetadata } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';

const CHANGES_WITH = 'gatehouse:public:changes-with';

/**
 * Declares the `content` tables a public controller's bodies are made of (on the class, for all its routes, or on
 * one method): a body can change only when one of them does (their versions, `content.table_version`, kept by
 * triggers) — or when the clock moves, which `ChangesWithClock` declares instead. PublicPipeline answers an
 * `If-None-Match` of a declared route from the tables' versions when it has served the same URL at those versions
 * (see PublicPipeline.conditional). Every table the controller's SQL names must be listed
 * (test/content/conditional-reads.e2e-spec.ts checks the repositories' SQL against it).
 */
export const ChangesWith = (...tables: string[]) => SetMetadata(CHANGES_WITH, [...tables].sort());

/**
 * Declares a route whose body depends on the time of the request (a window such as "the last 7 days", an
 * availability computed from now, a per-process cache refreshed on a timer): no table version can stand for it,
 * so its `If-None-Match` is compared with the SHA-256 of the body it would send, as before.
 */
export const ChangesWithClock = () => SetMetadata(CHANGES_WITH, null);

/** The tables a route's body is made of (method first, then class), or null: none declared, or clock-dependent. */
export function changesWith(controller: object, method: object): readonly string[] | null {
  const own = Reflect.getMetadata(CHANGES_WITH, method) as string[] | null | undefined;
  if (own !== undefined) return own;
  return (Reflect.getMetadata(CHANGES_WITH, controller) as string[] | undefined) ?? null;
}

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
