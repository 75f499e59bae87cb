import type { DataSource } from 'typeorm';
import { preparedText } from '../../database/prepared';
import { ISO_TIMESTAMPTZ } from '../../database/timestamps';

/**
 * Totals of public lists, kept TOTAL_TTL_MS per query and filters: counting every matching row on every request
 * costs as much as the data is large (100,000 campaigns), while a page is an index range. Public responses are
 * cacheable for 60 s anyway; a total may lag writes by up to TOTAL_TTL_MS (never below what a page proves, see
 * provenTotal), while rows never lag: every page reads its rows. Concurrent misses share one count.
 */
export const TOTAL_TTL_MS = 30_000;
const TOTAL_CACHE_MAX = 10_000;

/** A substring filter's `ILIKE` pattern: `%`, `_` and `\` in `s` match themselves. */
export const likeEscape = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

interface Total {
  at: number;
  n: Promise<number>;
  /** Bumped whenever `n` is corrected (provenTotal): a page answered before may now answer another total. */
  rev: number;
  /** Replaced or evicted: the next page of this query counts again. */
  gone: boolean;
}

const cache = new WeakMap<DataSource, Map<string, Total>>();

function cachedTotal(ds: DataSource, key: string, count: () => Promise<number>): Total {
  let totals = cache.get(ds);
  if (!totals) cache.set(ds, (totals = new Map()));
  const now = Date.now();
  const hit = totals.get(key);
  if (hit && now - hit.at < TOTAL_TTL_MS) return hit;
  if (hit) hit.gone = true;
  if (totals.size >= TOTAL_CACHE_MAX) {
    const oldest = totals.keys().next().value as string;
    totals.get(oldest)!.gone = true;
    totals.delete(oldest);
  }
  const total: Total = { at: now, n: count(), rev: 0, gone: false };
  total.n.catch(() => {
    total.gone = true;
    if (totals.get(key) === total) totals.delete(key);
  });
  totals.set(key, total);
  return total;
}

/**
 * Whether a page answered now would carry the same total as one answered when `total` stood at `rev`: the cached
 * count is neither expired, replaced nor corrected since. PublicPipeline keeps a list's ETag for its table versions
 * only while this holds (the rows are read on every request; the total is the one part a cache decides).
 */
const stillCurrent = (total: Total, rev: number) => () =>
  !total.gone && total.rev === rev && Date.now() - total.at < TOTAL_TTL_MS;

/** One page of a list's rows, its total, and whether that total still stands (see stillCurrent). */
export interface PageRows<T> {
  rows: T[];
  total: number;
  current: () => boolean;
}

/**
 * A public list query: the visibility rule and filters as a WHERE clause with numbered parameters, then one
 * page of rows and the total (cached, see TOTAL_TTL_MS), in parallel. Every public list repository uses it.
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

  /**
   * One page and the total. The page's rows are always read, whatever the cached total says: a total cached
   * before rows were added must never hide them. Their timestamptz columns arrive as ISO text (ISO_TIMESTAMPTZ:
   * list mappers only write them out, through `iso`), hence `Timestamp` in the row types. The total answered is
   * the cached count corrected by what the page itself proves: at least `offset + rows.length`, and exactly that
   * when the page holds rows but is not full (the last page; the cache takes the exact figure). A deep `page`
   * costs at most a scan of the list's matching rows, as counting it does.
   */
  async page<T>(
    ds: DataSource,
    q: { select: string; from: string; orderBy: string },
    limit: number,
    offset: number,
  ): Promise<PageRows<T>> {
    const { count: countText, page: pageText } = textsOf(q, this.where.join(' AND '), this.params.length);
    const total = cachedTotal(ds, `${countText}|${JSON.stringify(this.params)}`, async () => {
      const r = (await preparedText(ds, countText, this.params)) as { n: number }[];
      return r[0].n;
    });
    const [rows, count] = await Promise.all([
      preparedText<T>(ds, pageText, [...this.params, limit, offset], ISO_TIMESTAMPTZ),
      total.n,
    ]);
    const answered = provenTotal(total, count, rows.length, limit, offset);
    return { rows, total: answered, current: stillCurrent(total, total.rev) };
  }
}

/** The count and page statements of each list shape, by its select list, then by the rest (see textsOf). */
const texts = new Map<string, Map<string, { count: string; page: string }>>();
const TEXTS_MAX = 1_000;

/**
 * A list's two statements for its WHERE clause: built once per shape rather than per request (a page statement is
 * several hundred characters, hashed again for its prepared statement's name each time it is built anew). A shape
 * is a combination of filters, so there are few; past TEXTS_MAX per select list they are built each time.
 */
function textsOf(
  q: { select: string; from: string; orderBy: string },
  where: string,
  n: number,
): { count: string; page: string } {
  let bySelect = texts.get(q.select);
  if (!bySelect) texts.set(q.select, (bySelect = new Map()));
  const key = `${q.from}\n${q.orderBy}\n${where}`;
  let t = bySelect.get(key);
  if (!t) {
    t = {
      count: `SELECT count(*)::int AS n FROM ${q.from} WHERE ${where}`,
      page: `SELECT ${q.select} FROM ${q.from} WHERE ${where} ORDER BY ${q.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    };
    if (bySelect.size < TEXTS_MAX) bySelect.set(key, t);
  }
  return t;
}

/**
 * The total a page answers: the cached `count`, but never below what the page's rows prove (`offset + rows`), and
 * exactly that on a last page holding rows or on an empty first page (the cache takes the exact figure). An empty
 * later page proves nothing, so the count stands.
 */
function provenTotal(cached: Total, count: number, rows: number, limit: number, offset: number): number {
  if (rows === 0 && offset > 0) return count;
  const seen = offset + rows;
  if (rows < limit) {
    if (seen !== count) cached.rev++;
    cached.n = Promise.resolve(seen);
    return seen;
  }
  return Math.max(count, seen);
}
