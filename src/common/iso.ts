/** A timestamp as `Date#toISOString` writes it (years 0 to 9999). */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A timestamp as the public API writes it (ISO 8601 in UTC, milliseconds, `Z`), or null. `pg` gives `Date`s for
 * timestamp columns, or that text itself where a query asks for it (ISO_TIMESTAMPTZ, src/database/timestamps.ts),
 * which is kept as it is; any other string (a value computed in SQL as text, JSON's timestamps) is parsed first.
 */
export function isoOrNull(d: Date | string | null): string | null {
  if (d === null) return null;
  if (typeof d === 'string') return ISO.test(d) ? d : new Date(d).toISOString();
  return d.toISOString();
}

/** `isoOrNull` for a column that is never null. */
export const iso = (d: Date | string): string => isoOrNull(d)!;

/** A timestamp column as a row holds it: a `Date`, or its ISO text where the query asked for that (ISO_TIMESTAMPTZ). */
export type Timestamp = Date | string;
