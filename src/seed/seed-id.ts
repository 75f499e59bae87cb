/**
 * A seeder's deterministic id as SQL: `<prefix>_` + 22 hex characters of md5 over the SQL expression `key` (the
 * organisation and the row number, say), so seeding again names the same rows and adds only what is new. The
 * owners' bulk-seed statements use it (people, visits, events), each for its own rows.
 */
export const seedIdSql = (prefix: string, key: string): string => `'${prefix}_' || left(md5(${key}), 22)`;
