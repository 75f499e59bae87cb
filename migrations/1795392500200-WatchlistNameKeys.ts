import { MigrationInterface, QueryRunner } from 'typeorm';
import { fillNameKeys } from '../src/visitor/watchlist/name-keys.fill';

/**
 * Watchlist names matched by rules that know names (src/visitor/watchlist/name-match.ts): transliteration,
 * spelling variants, initials, omitted middle names. Candidates come from index keys computed in the application
 * (pairs of word codes: consonants, Double Metaphone key, initial) in a GIN index on `watchlist_name.keys`; the
 * trigram index and its candidate function, which found neither "K. Mensah" nor "Jürgen Schröder" spelt
 * "Juergen Schroeder", go. Existing names get their keys here. The index has no pending list (`fastupdate = off`):
 * names are written seldom and searched at every screening, and a search reads the whole pending list (50 ms after
 * 100,000 names were added, `bench watchlist`).
 */
export class WatchlistNameKeys1795392500200 implements MigrationInterface {
  name = 'WatchlistNameKeys1795392500200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE visitor.watchlist_name ADD COLUMN keys text[] NOT NULL DEFAULT '{}'`);
    await fillNameKeys((sql, params) => q.query(sql, params));
    await q.query(
      `CREATE INDEX watchlist_name_keys_idx ON visitor.watchlist_name USING gin (keys) WITH (fastupdate = off)`,
    );
    await q.query(`DROP FUNCTION visitor.watch_name_candidates(text, boolean, text)`);
    await q.query(`DROP INDEX visitor.watchlist_name_norm_trgm_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX watchlist_name_norm_trgm_idx ON visitor.watchlist_name USING gin (norm gin_trgm_ops)`,
    );
    await q.query(`
      CREATE FUNCTION visitor.watch_name_candidates(text, boolean, text)
        RETURNS SETOF visitor.watchlist_name
        LANGUAGE sql STABLE ROWS 20
        SET pg_trgm.similarity_threshold = 0.5
        SET enable_seqscan = off
        AS $$ SELECT * FROM visitor.watchlist_name n
               WHERE n.organisation_id = $1 AND n.livemode = $2 AND n.norm OPERATOR(public.%) $3 $$`);
    await q.query(`DROP INDEX visitor.watchlist_name_keys_idx`);
    await q.query(`ALTER TABLE visitor.watchlist_name DROP COLUMN keys`);
  }
}
