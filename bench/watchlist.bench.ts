/**
 * `npm run bench -- watchlist`: how well watchlist names match, and what screening costs.
 * 1. Precision and recall over the labelled pairs (bench/fixtures/watchlist-names.tsv): the matcher (`matchNames`)
 *    and, as the baseline in the same run, the rule it replaced (in PostgreSQL: trigram similarity over
 *    `visitor.watch_norm` ≥ 0.5 for a candidate, then ≥ 0.6, or Levenshtein ≤ 1 for names of 5+ letters).
 * 2. Screening among 100,000 entries (BENCH_WATCHLIST) of one organisation, with 20,000 of another beside them:
 *    names of two words made of syllables (onset, vowel, coda; 1 first name in 8 from the labelled set), plus the
 *    labelled entries. 1,000 screenings (the labelled visitors' names, then generated ones),
 *    each as visit creation runs it (candidates from the key index, `matchNames`, the screening statement), one
 *    connection, inside rolled-back transactions: p50/p99. Baseline in the same run: the replaced trigram statement
 *    (its function and index created for it) over the same entries and names.
 * Writes bench/results/watchlist.{json,md}.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { matchNames, nameKeys } from '../src/visitor/watchlist/name-match';
import { CANDIDATES_SQL, RunQuery, screenVisitor } from '../src/visitor/watchlist/watchlist.repository';
import { namePairs, score } from './name-pairs';
import { benchDatabase, runIfMain } from './support';

const ENTRIES = Number(process.env.BENCH_WATCHLIST ?? 100_000);
const OTHER = 20_000;
const RUNS = 1000;

/** Syllables of generated names: onset, vowel, coda, so names differ in their consonants as real ones do. */
const ONSETS = 'b br ch d dr f g gr h j k kw l m n p pr r s sh st t tr v w y z ng ts'.split(' ');
const VOWELS = 'a e i o u ai ou'.split(' ');
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'm', 'k', 'nd', 'ng'];
const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
/** A name from the md5 of `seed`: a first name of 2 syllables (1 in 8 from `firstNames`), a last name of 2–3. */
function generatedName(seed: string, firstNames: string[]): string {
  const h = createHash('md5').update(seed).digest();
  const syl = (b: number) =>
    ONSETS[h[b] % ONSETS.length] + VOWELS[h[b + 1] % VOWELS.length] + CODAS[h[b + 2] % CODAS.length];
  const first = h[15] % 8 === 0 ? firstNames[h.readUInt16BE(13) % firstNames.length] : cap(syl(0) + syl(3));
  return `${first} ${cap(syl(6) + syl(9) + (h[12] % 2 ? VOWELS[h[12] % VOWELS.length] : ''))}`;
}
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (x: number) => Number(x.toFixed(2));
const ratio = (x: number) => Number(x.toFixed(3));

/** The rule the matcher replaced (migration 1795392500100 and before), kept here as the baseline. */
const TRIGRAM_SCREEN_SQL = `
  WITH q AS (SELECT visitor.watch_norm($4) AS norm)
  SELECT DISTINCT ON (n.entry_id) n.entry_id, n.value
    FROM q, visitor.watch_name_candidates($1, $2, q.norm) n JOIN visitor.watchlist_entry e ON e.id = n.entry_id
   WHERE q.norm <> '' AND (e.expires_at IS NULL OR e.expires_at > $3)
     AND (similarity(n.norm, q.norm) >= 0.6
          OR (length(q.norm) >= 5 AND levenshtein(left(n.norm, 255), left(q.norm, 255)) <= 1))`;

export async function main(): Promise<void> {
  const pairs = namePairs();
  const db = await benchDatabase('watchlist');
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  try {
    // 1. precision and recall
    const t0 = performance.now();
    const matcher = score(pairs, (p) => matchNames(p.visitor, p.entry) !== null);
    const matcherMs = (performance.now() - t0) / pairs.length;
    const old = (
      await pg.query(
        `SELECT (s >= 0.5 AND (s >= 0.6 OR (length(a) >= 5 AND levenshtein(left(a, 255), left(b, 255)) <= 1))) AS m
           FROM (SELECT a, b, i, similarity(a, b) AS s
                   FROM (SELECT visitor.watch_norm(v) AS a, visitor.watch_norm(e) AS b, i
                           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p(v, e, i)) x) y
          ORDER BY i`,
        [pairs.map((p) => p.visitor), pairs.map((p) => p.entry)],
      )
    ).rows.map((r: { m: boolean }) => r.m);
    let k = 0;
    const baseline = score(pairs, () => old[k++]);
    const cultures = [...new Set(pairs.map((p) => p.culture.split('-')[0]))].sort();

    // 2. screening among ENTRIES entries
    const org = `org_bench_${newId('x').slice(2, 12)}`;
    const other = `${org}_other`;
    const firstNames = [...new Set(pairs.flatMap((p) => [p.visitor, p.entry]).map((n) => n.split(/\s+/)[0]))];
    const seedT = performance.now();
    const seed = async (orgId: string, names: string[]) => {
      for (let i = 0; i < names.length; i += 5000) {
        const chunk = names.slice(i, i + 5000);
        const ids = chunk.map(() => newId('watch'));
        await pg.query(
          `INSERT INTO visitor.watchlist_entry (id, organisation_id, livemode, name, aliases, reason, severity,
                                                created_by, created_at, updated_at)
           SELECT id, $2, false, name, '{}', 'Bench entry', 'medium', 'bench', now(), now()
             FROM unnest($1::text[], $3::text[]) AS x(id, name)`,
          [ids, orgId, chunk],
        );
        await pg.query(
          `INSERT INTO visitor.watchlist_name (entry_id, organisation_id, livemode, kind, value, norm, keys)
           SELECT id, $2, false, 'name', name, visitor.watch_norm(name), ARRAY(SELECT jsonb_array_elements_text(keys))
             FROM unnest($1::text[], $3::text[], $4::jsonb[]) AS x(id, name, keys)`,
          [ids, orgId, chunk, chunk.map((n) => JSON.stringify(nameKeys(n)))],
        );
      }
    };
    const labelled = [...new Set(pairs.map((p) => p.entry))];
    await seed(org, [
      ...labelled,
      ...Array.from({ length: ENTRIES - labelled.length }, (_, i) => generatedName(`e${i}`, firstNames)),
    ]);
    await seed(
      other,
      Array.from({ length: OTHER }, (_, i) => generatedName(`o${i}`, firstNames)),
    );
    await pg.query('ANALYZE visitor.watchlist_entry; ANALYZE visitor.watchlist_name');
    const seedSeconds = Number(((performance.now() - seedT) / 1000).toFixed(1));
    // the baseline's index and candidate function (dropped by migration 1795392500200)
    await pg.query(
      `CREATE INDEX watchlist_name_norm_trgm_idx ON visitor.watchlist_name USING gin (norm gin_trgm_ops)`,
    );
    await pg.query(`
      CREATE FUNCTION visitor.watch_name_candidates(text, boolean, text)
        RETURNS SETOF visitor.watchlist_name LANGUAGE sql STABLE ROWS 20
        SET pg_trgm.similarity_threshold = 0.5 SET enable_seqscan = off
        AS $$ SELECT * FROM visitor.watchlist_name n
               WHERE n.organisation_id = $1 AND n.livemode = $2 AND n.norm OPERATOR(public.%) $3 $$`);

    const visitors = [
      ...pairs.map((p) => p.visitor),
      ...Array.from({ length: RUNS - pairs.length }, (_, i) => generatedName(`v${i}`, firstNames)),
    ].slice(0, RUNS);
    const split = { candidates: [] as number[], matcher: [] as number[] };
    const screenNew = async (name: string) => {
      const queries: { ms: number; rows: number }[] = [];
      const run: RunQuery = async (text, values, prepareAs) => {
        const t = performance.now();
        const r = await pg.query(prepareAs ? { name: prepareAs, text, values } : { text, values });
        queries.push({ ms: performance.now() - t, rows: r.rows.length });
        return r.rows;
      };
      const t0 = performance.now();
      const matches = await screenVisitor(
        run,
        { organisationId: org, livemode: false },
        { visitId: newId('visit'), visitorId: newId('visitor'), name, phone: null, email: null },
        'bench',
        new Date(),
      );
      split.candidates.push(queries[0].ms);
      split.matcher.push(performance.now() - t0 - queries.reduce((a, q) => a + q.ms, 0));
      return { candidates: queries[0].rows, matches: matches.length };
    };
    const screenOld = async (name: string) => {
      const res = await pg.query({
        name: 'old',
        text: TRIGRAM_SCREEN_SQL,
        values: [org, false, new Date(), name],
      });
      return { candidates: NaN, matches: res.rows.length };
    };
    const time = async (f: (n: string) => Promise<{ candidates: number; matches: number }>) => {
      for (const n of visitors.slice(0, 50)) {
        await pg.query('BEGIN');
        await f(n);
        await pg.query('ROLLBACK');
      }
      const times: number[] = [];
      let candidates = 0;
      let matches = 0;
      for (const n of visitors) {
        await pg.query('BEGIN');
        const started = performance.now();
        const r = await f(n);
        times.push(performance.now() - started);
        await pg.query('ROLLBACK');
        candidates += r.candidates;
        matches += r.matches;
      }
      times.sort((a, b) => a - b);
      return {
        p50: ms(quantile(times, 0.5)),
        p99: ms(quantile(times, 0.99)),
        max: ms(times[times.length - 1]),
        mean_candidates: Number((candidates / visitors.length).toFixed(1)),
        matches,
      };
    };
    // alternate, two rounds each, so both see the same machine
    const fresh: Awaited<ReturnType<typeof time>>[] = [];
    const trigram: Awaited<ReturnType<typeof time>>[] = [];
    for (let round = 0; round < 2; round++) {
      trigram.push(await time(screenOld));
      fresh.push(await time(screenNew));
    }
    const p = (xs: number[], q: number) =>
      ms(
        quantile(
          [...xs].sort((a, b) => a - b),
          q,
        ),
      );
    const parts = {
      candidates_query: { p50: p(split.candidates, 0.5), p99: p(split.candidates, 0.99) },
      matcher: { p50: p(split.matcher, 0.5), p99: p(split.matcher, 0.99) },
    };
    const plan = (
      await pg.query(`EXPLAIN (ANALYZE, COSTS OFF) ${CANDIDATES_SQL}`, [
        org,
        false,
        nameKeys('Kwame Mensah', 'query'),
        new Date(),
        null,
        null,
      ])
    ).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
    const worst = (rs: typeof fresh) => rs.reduce((a, r) => (r.p99 > a.p99 ? r : a));

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      labelled_pairs: pairs.length,
      matches_labelled: pairs.filter((p) => p.match).length,
      cultures,
      matcher: {
        precision: ratio(matcher.precision),
        recall: ratio(matcher.recall),
        ms_per_pair: Number(matcherMs.toFixed(3)),
        wrong: matcher.wrong.map((w) => `${w.visitor} / ${w.entry}: labelled ${w.match ? 'match' : 'no'}`),
      },
      baseline_trigram: {
        precision: ratio(baseline.precision),
        recall: ratio(baseline.recall),
      },
      watchlist_entries: ENTRIES,
      other_organisation_entries: OTHER,
      seed_seconds: seedSeconds,
      screening_ms: { matcher: fresh, baseline_trigram: trigram },
      matcher_parts_ms: parts,
      candidates_plan: plan,
      bench_peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      targets: { recall: '≥ 0.95', precision: '≥ 0.90', screening_p99_ms: '≤ 10' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(
      join(process.cwd(), 'bench/results/watchlist.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    const w = worst(fresh);
    const b = worst(trigram);
    const md = [
      `# bench watchlist (${result.date}, ${result.machine})`,
      '',
      `${pairs.length} labelled pairs (${result.matches_labelled} matches; ${cultures.join(', ')}).`,
      '',
      '| rule | precision | recall |',
      '|---|---|---|',
      `| matcher (name-match.ts) | ${result.matcher.precision} | ${result.matcher.recall} |`,
      `| baseline: trigram ≥ 0.6 or edit distance ≤ 1 | ${result.baseline_trigram.precision} | ${result.baseline_trigram.recall} |`,
      '',
      `Screening among ${ENTRIES.toLocaleString('en')} entries (another organisation's ${OTHER.toLocaleString('en')} beside them; seeded in ${seedSeconds} s), ${RUNS} names, one connection, two alternating rounds each (worst round shown):`,
      '',
      '| screening | p50 ms | p99 ms | max ms | candidates per name | matches |',
      '|---|---|---|---|---|---|',
      `| matcher: key index + matchNames + statement | ${w.p50} | ${w.p99} | ${w.max} | ${w.mean_candidates} | ${w.matches} |`,
      `| baseline: trigram statement | ${b.p50} | ${b.p99} | ${b.max} | – | ${b.matches} |`,
      '',
      `Of the matcher's screening: candidates query (names, phone, e-mail; the only statement when nothing matches) p50 ${parts.candidates_query.p50} ms, p99 ${parts.candidates_query.p99} ms; matchNames and the rest in the application p50 ${parts.matcher.p50} ms, p99 ${parts.matcher.p99} ms.`,
      '',
      `Bench process peak RSS ${result.bench_peak_rss_mb} MB. Targets: recall ≥ 0.95, precision ≥ 0.90, p99 ≤ 10 ms.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/watchlist.md'), md);
    console.log(md);
  } finally {
    await pg.end();
    await db.drop();
  }
}

runIfMain(module, main);
