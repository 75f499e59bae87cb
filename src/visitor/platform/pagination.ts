import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { DecimalInteger } from '../../common/errors/decimal-integer';
import type { Tenant } from './tenant';

/** `limit` and `cursor` of every /v1 list; list DTOs extend it with their filters. */
export class ListQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25, description: 'Page size' })
  @IsOptional()
  @DecimalInteger()
  @IsInt({ message: 'must be an integer from 1 to 100' })
  @Min(1, { message: 'must be an integer from 1 to 100' })
  @Max(100, { message: 'must be an integer from 1 to 100' })
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque cursor from `next_cursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;
}

/** A page of a /v1 list: `{data, next_cursor, has_more}`. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The OpenAPI shape of a page of `item`; used as `@ApiOkResponse({ type: PageOf(SiteResponse) })`. */
type Class = new (...args: never[]) => unknown;
const pageClasses = new Map<Class, Class>();
export function PageOf(item: Class): Class {
  let cls = pageClasses.get(item);
  if (!cls) {
    class PageResponse {
      @ApiProperty({ type: [item] }) data: unknown[];
      @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` to get the next page' })
      next_cursor: string | null;
      @ApiProperty() has_more: boolean;
    }
    Object.defineProperty(PageResponse, 'name', { value: `${item.name.replace(/Response$/, '')}Page` });
    cls = PageResponse;
    pageClasses.set(item, cls);
  }
  return cls;
}

export type KeyValue = string | number;
export const DEFAULT_LIMIT = 25;

/** The position after which a (created_at, id)-ordered page starts. */
export interface CreatedAfter {
  createdAt: string;
  id: string;
}

/**
 * The filters a page was asked for: every query parameter but `limit` and `cursor`, as given (after validation),
 * in one canonical string. A cursor carries a digest of it, so a cursor used with other filters is refused.
 */
function filtersOf(q: ListQuery): string {
  const entries = Object.entries(q as Record<string, unknown>)
    .filter(([k, v]) => k !== 'limit' && k !== 'cursor' && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/**
 * Keyset cursors: the sort key of the last row of a page and a digest of the page's filters (`filtersOf`), signed
 * with HMAC-SHA256 (key derived from SESSION_SECRET) over the list name, the tenant, the key and the digest, so a
 * cursor cannot be forged, edited, or carried to another list, organisation or mode. A cursor that fails any
 * check is `validation_failed` at `query.cursor`; one used with other filters than its page's is refused the same
 * way, with its own message (it would otherwise answer a page of another list, often an empty one).
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('gatehouse cursor v1').digest();
  }

  private mac(list: string, tenant: Tenant, body: string): Buffer {
    return createHmac('sha256', this.key)
      .update(`${list}\n${tenant.organisationId}\n${tenant.livemode}\n${body}`)
      .digest()
      .subarray(0, 16);
  }

  /** The digest of a page's filters a cursor carries (not secret: the signature covers it). */
  private filterTag(q: ListQuery): string {
    return createHash('sha256').update(filtersOf(q)).digest().subarray(0, 9).toString('base64url');
  }

  encode(list: string, tenant: Tenant, q: ListQuery, values: KeyValue[]): string {
    const body = `${Buffer.from(JSON.stringify(values)).toString('base64url')}.${this.filterTag(q)}`;
    return `${body}.${this.mac(list, tenant, body).toString('base64url')}`;
  }

  /** The sort key `q.cursor` carries, checked: signed for this list and tenant, and given with the same filters. */
  decode(list: string, tenant: Tenant, q: ListQuery & { cursor: string }, arity: number): KeyValue[] {
    const bad = () =>
      ApiError.validation([{ location: 'query.cursor', message: 'is not a cursor returned by this list' }]);
    const [keys, tag, sig, extra] = q.cursor.split('.');
    if (!keys || !tag || !sig || extra !== undefined) throw bad();
    const expected = this.mac(list, tenant, `${keys}.${tag}`);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
    if (tag !== this.filterTag(q))
      throw ApiError.validation([
        {
          location: 'query.cursor',
          message:
            'was returned for other filters: ask for the next page with the same filters as the first, or start again without cursor',
        },
      ]);
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(keys, 'base64url').toString('utf8'));
    } catch {
      throw bad();
    }
    if (
      !Array.isArray(values) ||
      values.length !== arity ||
      !values.every((v) => typeof v === 'string' || typeof v === 'number')
    )
      throw bad();
    return values as KeyValue[];
  }

  /**
   * Builds a page from `rows` fetched with `limit + 1`: the extra row only says whether more exist.
   * `keyOf` gives the sort key of a row (the same values the repository compares with the cursor).
   */
  page<R, T>(
    list: string,
    tenant: Tenant,
    q: ListQuery,
    rows: R[],
    limit: number,
    keyOf: (r: R) => KeyValue[],
    view: (r: R) => T,
  ): Page<T> {
    const hasMore = rows.length > limit;
    const shown = hasMore ? rows.slice(0, limit) : rows;
    return {
      data: shown.map(view),
      next_cursor: hasMore ? this.encode(list, tenant, q, keyOf(shown[shown.length - 1])) : null,
      has_more: hasMore,
    };
  }

  /**
   * A page of a short list computed in memory (`items`, already in `keyOf` order, ascending; the key is unique):
   * the same cursors and envelope as the keyset lists, so clients page every list the same way.
   */
  memoryPage<R, T>(
    list: string,
    tenant: Tenant,
    q: ListQuery,
    items: R[],
    keyOf: (r: R) => [KeyValue, KeyValue],
    view: (r: R) => T,
  ): Page<T> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? this.decode(list, tenant, { ...q, cursor: q.cursor }, 2) : null;
    const later = (k: KeyValue[]) => {
      for (const [i, v] of k.entries()) if (v !== after![i]) return v > after![i];
      return false;
    };
    const rest = after ? items.filter((r) => later(keyOf(r))) : items;
    return this.page(list, tenant, q, rest.slice(0, limit + 1), limit, keyOf, view);
  }

  /**
   * A page of a list ordered by (created_at, id), either direction: decode the cursor, fetch `limit + 1` rows
   * (the repository compares with the cursor in its own order), build the page.
   */
  async createdPage<R extends { id: string } & ({ created_at: Date | string } | { createdAt: Date }), T>(
    list: string,
    tenant: Tenant,
    q: ListQuery,
    fetch: (limit: number, after?: CreatedAfter) => Promise<R[]>,
    view: (r: R) => T,
  ): Promise<Page<T>> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const after = q.cursor ? this.decode(list, tenant, { ...q, cursor: q.cursor }, 2) : undefined;
    const rows = await fetch(
      limit,
      after ? { createdAt: String(after[0]), id: String(after[1]) } : undefined,
    );
    const createdOf = (r: R) => new Date('createdAt' in r ? r.createdAt : r.created_at).toISOString();
    return this.page(list, tenant, q, rows, limit, (r) => [createdOf(r), r.id], view);
  }
}
