/**
 * `npm run bench -- desk`: what watchlist screening costs visit creation.
 * 1. `POST /v1/visits` (test mode, secret key, full chain) for an organisation with no watchlist entries and for one
 *    with 100,000 (BENCH_WATCHLIST), alternating in one run (two rounds each), so the ratio holds on a noisy machine.
 *    Names are made of syllables (1,600 first names, 64,000 last names), entries three words, visitors two, so
 *    names repeat and resemble each other as real ones do; some visitors match.
 * 2. Screening as visit creation runs it (`screenVisitor`: candidates, `matchNames`, the screening statement when
 *    anything matched) over the 100,000 entries, one connection,
 *    1,000 times inside rolled-back transactions: p50/p99, for non-matching and matching names.
 * Writes bench/results/desk.{json,md}.
 */
import autocannon from 'autocannon';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { DataSource } from 'typeorm';
import { platformServices } from '../src/visitor/visitor.command';
import { fillNameKeys } from '../src/visitor/watchlist/name-keys.fill';
import { nameKeys } from '../src/visitor/watchlist/name-match';
import { CANDIDATES_SQL, screenVisitor } from '../src/visitor/watchlist/watchlist.repository';
import {
  benchProOrg,
  benchContext,
  benchDatabase,
  CONNECTIONS,
  DURATION,
  load,
  LoadResult,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';

const ENTRIES = Number(process.env.BENCH_WATCHLIST ?? 100_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);

/**
 * Syllables of the generated names: 1,600 first names, 64,000 last names, so names repeat as real ones do. Each
 * syllable has consonants of its own (ka, gba, tse, mbo …): names made of ka/ko/ki-like syllables differ only in
 * their vowels, and watchlist matching takes vowel-only differences for spellings of one name (Muhammad = Mohammed),
 * so 64,000 such last names were about 1,700 names to it (625 candidates per screening).
 */
const SYL = [
  'ka',
  'ma',
  'no',
  'se',
  'ti',
  'bo',
  'du',
  'fe',
  'ga',
  'lo',
  're',
  'pi',
  'vo',
  'kwa',
  'gba',
  'kpo',
  'hwe',
  'tse',
  'dzo',
  'bra',
  'kre',
  'tro',
  'pre',
  'fri',
  'gro',
  'dra',
  'blo',
  'pla',
  'kle',
  'fla',
  'sta',
  'sko',
  'spe',
  'mbo',
  'nde',
  'ngu',
  'lma',
  'rko',
  'nti',
  'mpa',
];
const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
/** The name made from the md5 of `seed`: first name from bytes 0-1, last name from bytes 2-4 (as the SQL below). */
function nameOf(seed: number, words: 2 | 3): string {
  const h = createHash('md5').update(String(seed)).digest();
  const syl = (...bytes: number[]) => cap(bytes.map((b) => SYL[h[b] % SYL.length]).join(''));
  const parts = [syl(0, 1), syl(2, 3, 4)];
  if (words === 3) parts.push(syl(5, 6));
  return parts.join(' ');
}
const SQL_SYL = (k: number[]) =>
  `initcap(${k.map((b) => `($3::text[])[1 + get_byte(decode(md5(i::text), 'hex'), ${b}) % ${SYL.length}]`).join(' || ')})`;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
let phoneSeq = 2_000_000;
const nextPhone = () => `+23324${phoneSeq++}`;
/** Visitors: two-word names from seeds the entries do not use (they may still resemble or match some). */
let nameSeq = 10_000_000;
const visitorName = () => nameOf(nameSeq++, 2);

interface Org {
  id: string;
  site: string;
  host: string;
  key: string;
}

export async function main(): Promise<void> {
  const db = await benchDatabase('desk');
  const { url } = db;
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const makeOrg = (name: string): Promise<Org> =>
    benchProOrg(ds, s, name, ['visits:read', 'visits:write', 'watchlist:read']);
  const plain = await makeOrg('Bench Desk (no watchlist)');
  const listed = await makeOrg('Bench Desk (100,000 watchlist entries)');

  const t0 = Date.now();
  await ds.query(
    `INSERT INTO visitor.watchlist_entry (id, organisation_id, livemode, name, aliases, phone, email, reason, severity,
                                          created_by, created_at, updated_at)
     SELECT 'watch_seed' || i, $1, false,
            ${SQL_SYL([0, 1])} || ' ' || ${SQL_SYL([2, 3, 4])} || ' ' || ${SQL_SYL([5, 6])},
            CASE WHEN i % 4 = 0 THEN ARRAY[${SQL_SYL([7, 8])} || ' ' || ${SQL_SYL([2, 3, 4])}] ELSE '{}' END,
            CASE WHEN i % 2 = 0 THEN '+23355' || (1000000 + i) END,
            CASE WHEN i % 3 = 0 THEN 'entry' || i || '@watch.test' END,
            'Bench entry', (ARRAY['low', 'medium', 'high'])[1 + i % 3], 'bench', now(), now()
       FROM generate_series(1, $2) i`,
    [listed.id, ENTRIES, SYL],
  );
  await ds.query(
    `INSERT INTO visitor.watchlist_name (entry_id, organisation_id, livemode, kind, value, norm)
     SELECT e.id, e.organisation_id, e.livemode, n.kind, n.value, visitor.watch_norm(n.value)
       FROM visitor.watchlist_entry e,
            LATERAL (SELECT 'name' AS kind, e.name AS value UNION ALL SELECT 'alias', unnest(e.aliases)) n
      WHERE e.organisation_id = $1`,
    [listed.id],
  );
  await fillNameKeys((sql, params) => ds.query(sql, params));
  await ds.query('ANALYZE visitor.watchlist_entry; ANALYZE visitor.watchlist_name');
  const seedSeconds = Number(((Date.now() - t0) / 1000).toFixed(1));
  await graph.close();

  const app = await startBenchServer(db, PORT, {
    BENCH_ORG: plain.id,
    TEST_MODE_RATE_PER_MINUTE: '100000000',
  });
  const base = `http://127.0.0.1:${PORT}`;
  const creates = (o: Org): autocannon.Options => ({
    url: `${base}/v1/visits`,
    method: 'POST',
    requests: [
      {
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          headers: {
            authorization: `Bearer ${o.key}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({
            site_id: o.site,
            host_id: o.host,
            type: 'meeting',
            visitor: { name: visitorName(), phone: nextPhone() },
          }),
        }),
      },
    ],
  });
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await autocannon({ ...creates(plain), connections: 4, duration: 2 });
    await autocannon({ ...creates(listed), connections: 4, duration: 2 });
    const none: LoadResult[] = [];
    const full: LoadResult[] = [];
    for (let round = 0; round < 2; round++) {
      none.push(await load(creates(plain)));
      full.push(await load(creates(listed)));
    }
    const avg = (rs: LoadResult[]) => ({
      rps: Math.round(rs.reduce((a, r) => a + r.rps, 0) / rs.length),
      p50: Math.max(...rs.map((r) => r.p50)),
      p99: Math.max(...rs.map((r) => r.p99)),
      requests: rs.reduce((a, r) => a + r.requests, 0),
    });
    const noneAvg = avg(none);
    const fullAvg = avg(full);
    const flagged = Number(
      (
        await pg.query(
          `SELECT count(*) FILTER (WHERE watchlist IS NOT NULL)::int AS n FROM visitor.visit WHERE organisation_id = $1`,
          [listed.id],
        )
      ).rows[0].n,
    );

    // The screening statement alone, over the 100,000 entries.
    const time = async (name: (i: number) => string, phone: (i: number) => string | null) => {
      const times: number[] = [];
      let found = 0;
      for (let i = 0; i < 1000; i++) {
        await pg.query('BEGIN');
        const started = performance.now();
        const matches = await screenVisitor(
          async (text, values, prepareAs) =>
            (await pg.query(prepareAs ? { name: prepareAs, text, values } : { text, values })).rows,
          { organisationId: listed.id, livemode: false },
          {
            visitId: newId('visit'),
            visitorId: newId('visitor'),
            name: name(i),
            phone: phone(i),
            email: null,
          },
          'visit.created',
          new Date(),
        );
        times.push(performance.now() - started);
        found += matches.length;
        await pg.query('ROLLBACK');
      }
      times.sort((a, b) => a - b);
      return {
        p50: Number(quantile(times, 0.5).toFixed(2)),
        p99: Number(quantile(times, 0.99).toFixed(2)),
        matches_found: found,
      };
    };
    const misses = await time(
      () => visitorName(),
      () => nextPhone(),
    );
    // entries' own names, words reversed, and their phones
    const hits = await time(
      (i) =>
        nameOf(i + 1, 3)
          .split(' ')
          .reverse()
          .join(' '),
      (i) => `+23355${1000000 + 2 * (i + 1)}`,
    );
    await pg.query('BEGIN');
    const plan = (
      await pg.query(`EXPLAIN (ANALYZE, COSTS OFF) ${CANDIDATES_SQL}`, [
        listed.id,
        false,
        nameKeys(visitorName(), 'query'),
        new Date(),
        null,
        null,
      ])
    ).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
    await pg.query('ROLLBACK');

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      watchlist_entries: ENTRIES,
      seed_seconds: seedSeconds,
      creates_without_watchlist: { runs: none, ...noneAvg },
      creates_with_watchlist: { runs: full, ...fullAvg },
      ratio: Number((fullAvg.rps / noneAvg.rps).toFixed(3)),
      visits_flagged_in_the_listed_org: flagged,
      screening_statement_ms: { misses, matches: hits },
      screening_plan: plan,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      targets: { ratio: '≥ 0.8' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/desk.json'), `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `# bench desk (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s per run)`,
      '',
      `${ENTRIES.toLocaleString('en')} watchlist entries seeded in ${seedSeconds} s. POST /v1/visits, test mode, secret key; runs alternate (two each).`,
      '',
      '| run | requests/s | p50 ms (worst run) | p99 ms (worst run) |',
      '|---|---|---|---|',
      `| no watchlist | ${noneAvg.rps} | ${noneAvg.p50} | ${noneAvg.p99} |`,
      `| ${ENTRIES.toLocaleString('en')} entries | ${fullAvg.rps} | ${fullAvg.p50} | ${fullAvg.p99} |`,
      '',
      `Ratio with / without: **${result.ratio}** (target ≥ 0.8). Visits flagged in the listed organisation: ${flagged}.`,
      `Screening alone (candidates, matcher and statement; 1,000 each, one connection): visitor names p50 ${misses.p50} ms, p99 ${misses.p99} ms (${misses.matches_found} matches); entries' names reversed and their phones p50 ${hits.p50} ms, p99 ${hits.p99} ms (${hits.matches_found} matches).`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/desk.md'), md);
    console.log(md);
  } finally {
    await pg.end();
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
