import type { Page } from '../../visitor/platform/pagination';

/** Cursors of the pages before this one, kept in the URL (`trail`) so "Previous" needs no server state. */
const TRAIL_MAX = 20;

export interface PagerLinks {
  next: string | null;
  previous: string | null;
  first: string | null;
}

/**
 * The links of `console-pager.eta` for a cursor-paged list: `path` with the current filters (`query`, every key but
 * `cursor` and `trail` kept), the page's `next_cursor` for "Next", and the trail of earlier cursors for "Previous"
 * (a trail deeper than 20 pages keeps the last 20, and "First page" is always there once past the first).
 */
export function pagerLinks(
  path: string,
  query: Record<string, unknown>,
  page: Pick<Page<unknown>, 'next_cursor' | 'has_more'>,
): PagerLinks {
  const filters = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (k !== 'cursor' && k !== 'trail' && typeof v === 'string' && v !== '') filters.set(k, v);
  const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : null;
  const trail = typeof query.trail === 'string' && query.trail !== '' ? query.trail.split('~') : [];
  const link = (c: string | null, t: string[]) => {
    const p = new URLSearchParams(filters);
    if (c) p.set('cursor', c);
    if (c && t.length) p.set('trail', t.slice(-TRAIL_MAX).join('~'));
    const q = p.toString();
    return q ? `${path}?${q}` : path;
  };
  return {
    next:
      page.has_more && page.next_cursor ? link(page.next_cursor, cursor ? [...trail, cursor] : trail) : null,
    previous: cursor ? link(trail.at(-1) ?? null, trail.slice(0, -1)) : null,
    first: cursor && trail.length ? link(null, []) : null,
  };
}
