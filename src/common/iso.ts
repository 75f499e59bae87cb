/**
 * A timestamp as the public API writes it (ISO 8601 in UTC, milliseconds, `Z`), or null. `pg` gives `Date`s for
 * timestamp columns; a string (a value computed in SQL as text) is parsed first.
 */
export function isoOrNull(d: Date | string | null): string | null {
  if (d === null) return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}

/** `isoOrNull` for a column that is never null. */
export const iso = (d: Date | string): string => isoOrNull(d)!;
