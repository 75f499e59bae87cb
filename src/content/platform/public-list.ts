import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { DecimalInteger } from '../../common/errors/decimal-integer';

/**
 * The highest `page` accepted: the spec sets no bound, so the only one is the largest integer a JSON number carries
 * exactly (RFC 7493), which the response echoes. Deep pages cost no more than the list's size (see PublicQuery).
 */
export const PAGE_MAX = Number.MAX_SAFE_INTEGER;

/** `page` and `limit` of every /public/v1 list; list DTOs extend it with their filters. */
export class PublicListQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: PAGE_MAX,
    default: 1,
    description: 'Page number; beyond the last page `data` is empty and `total` still counts every match',
  })
  @IsOptional()
  @DecimalInteger()
  @IsInt({ message: 'must be an integer of 1 or more' })
  @Min(1, { message: 'must be an integer of 1 or more' })
  @Max(PAGE_MAX, { message: `must be at most ${PAGE_MAX}, the largest integer JSON carries exactly` })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 50, default: 20 })
  @IsOptional()
  @DecimalInteger()
  @IsInt({ message: 'must be an integer from 1 to 50' })
  @Min(1, { message: 'must be an integer from 1 to 50' })
  @Max(50, { message: 'must be an integer from 1 to 50' })
  limit?: number;
}

export const pageOf = (q: PublicListQuery) => {
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  return { page, limit, offset: (page - 1) * limit };
};

export interface PublicPage<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

/**
 * On a body a handler returns: whether a body made now from the same rows would still be the same (a list's cached
 * total has not moved since; see PublicQuery). Not serialized (the response schema names the properties sent).
 */
export const STILL_CURRENT = Symbol('stillCurrent');

/** `STILL_CURRENT` of a handler's result, if it has one. */
export const stillCurrentOf = (body: unknown): (() => boolean) | undefined =>
  body && typeof body === 'object' ? (body as { [STILL_CURRENT]?: () => boolean })[STILL_CURRENT] : undefined;

/**
 * The body of every list route: `page` and `limit` → one page of rows and the total from `fetch` (the domain's
 * repository) → `{data, page, limit, total}`, each row through `map` (the resource's response mapper).
 */
export async function publicList<R, T>(
  q: PublicListQuery,
  fetch: (limit: number, offset: number) => Promise<{ rows: R[]; total: number; current?: () => boolean }>,
  map: (row: R) => T,
): Promise<PublicPage<T>> {
  const { page, limit, offset } = pageOf(q);
  const { rows, total, current } = await fetch(limit, offset);
  // `map(r)`, not `rows.map(map)`: a mapper with an optional second parameter must not receive the index.
  const body: PublicPage<T> = { data: rows.map((r) => map(r)), page, limit, total };
  if (current) Object.defineProperty(body, STILL_CURRENT, { value: current });
  return body;
}

/** `true`/`false` only (anything else fails `IsBoolean` with the parameter named). */
export const BooleanParam = () =>
  Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value));
export const IsBooleanParam = () => IsBoolean({ message: 'must be true or false' });

type Class = new (...args: never[]) => unknown;
const pages = new Map<Class, Class>();

/** The OpenAPI shape `{data, page, limit, total}` of a list of `item`. */
export function PublicPageOf(item: Class): Class {
  let cls = pages.get(item);
  if (!cls) {
    class PublicPageResponse {
      @ApiProperty({ type: [item] }) data: unknown[];
      @ApiProperty({ type: 'integer' }) page: number;
      @ApiProperty({ type: 'integer' }) limit: number;
      @ApiProperty({ type: 'integer', description: 'Items matching the filters, over all pages' })
      total: number;
    }
    Object.defineProperty(PublicPageResponse, 'name', { value: `${item.name.replace(/Response$/, '')}List` });
    cls = PublicPageResponse;
    pages.set(item, cls);
  }
  return cls;
}

/** `YYYY-MM-DD`, a real calendar date. */
export const IsIsoDate = () =>
  Matches(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'must be a date such as 2026-12-31' });
