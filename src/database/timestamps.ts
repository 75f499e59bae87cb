import { types as pgTypes, type CustomTypesConfig } from 'pg';

const TIMESTAMPTZ = 1184;
const parseTimestamptz = pgTypes.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;
const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * PostgreSQL's text form of a timestamptz as `Date#toISOString` would print it, without building a Date: the
 * session time zone is UTC (`…+00`), so only the separators change and the fraction is cut to milliseconds,
 * as a Date cuts it. Any other form (another session time zone, years beyond 9999, infinity) goes through the
 * driver's parser.
 */
export function timestamptzToIso(text: string): string {
  const m = UTC_TIMESTAMP.exec(text);
  if (!m) return parseTimestamptz(text).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? '').slice(0, 3).padEnd(3, '0')}Z`;
}

/**
 * Driver type parsers (the `types` of `preparedQuery`) for rows whose timestamps are only ever written out:
 * timestamptz as its ISO string (timestamptzToIso), every other type as usual. Parsing to a Date and formatting it
 * again cost several times more, dozens of times per list page.
 */
export const ISO_TIMESTAMPTZ: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ
      ? timestamptzToIso
      : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
