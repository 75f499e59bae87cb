/**
 * `npm run bench -- desk`: what watchlist screening costs visit creation.
 * 1. `POST /v1/visits` (test mode, secret key, full chain) for an organisation with no watchlist entries and for one
 *    with 100,000 (BENCH_WATCHLIST), alternating in one run (two rounds each), so the ratio holds on a noisy machine.
 *    Visitors are drawn from names that resemble the entries (shared first and last names) without matching them.
 * 2. The screening statement itself (the one visit creation runs) over the 100,000 entries, one connection,
 *    1,000 times inside rolled-back transactions: p50/p99, for non-matching and matching names.
 * Writes bench/results/desk.{json,md}.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { createDataSource } from '../src/database/data-source.factory';
import { platformServices } from '../src/visitor/visitor.command';
import { SCREEN_SQL } from '../src/visitor/watchlist/watchlist.repository';
import { benchDatabase, CONNECTIONS, DURATION, load, LoadResult, peakRssMb, runIfMain } from './support';

const ENTRIES = Number(process.env.BENCH_WATCHLIST ?? 100_000);
const PORT = 40_400 + Math.floor(Math.random() * 500);

const FIRST = [
  'Kwame',
  'Kofi',
  'Ama',
  'Akosua',
  'Yaw',
  'Esi',
  'Kojo',
  'Abena',
  'Kwabena',
  'Adwoa',
  'Efua',
  'Fiifi',
  'Nana',
  'Ekow',
  'Afia',
  'Yaa',
  'Kwaku',
  'Araba',
  'Kweku',
  'Adjoa',
  'Ibrahim',
  'Fatima',
  'Amina',
  'Musa',
  'Zainab',
  'Samuel',
  'Grace',
  'Daniel',
  'Mary',
  'Emmanuel',
];
const LAST = [
  'Mensah',
  'Boateng',
  'Owusu',
  'Asante',
  'Osei',
  'Appiah',
  'Addo',
  'Agyeman',
  'Amoah',
  'Ansah',
  'Badu',
  'Bonsu',
  'Darko',
  'Frimpong',
  'Gyamfi',
  'Kyei',
  'Manu',
  'Nkansah',
  'Ofori',
  'Opoku',
  'Quaye',
  'Sarpong',
  'Tetteh',
  'Wiredu',
  'Yeboah',
  'Acheampong',
  'Adjei',
  'Antwi',
  'Baah',
  'Danso',
];
/** Third names only entries carry, so visitors (first + last) resemble entries without matching them. */
const MIDDLE = Array.from(
  { length: 120 },
  (_, i) =>
    `${'BCDFGHJKLMNPRSTVWZ'[i % 18]}${'aeiou'[i % 5]}${'lmnrst'[i % 6]}${'aeiou'[(i >> 2) % 5]}${'kmnrs'[(i >> 3) % 5]}ville`,
);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
let phoneSeq = 2_000_000;
const nextPhone = () => `+23324${phoneSeq++}`;
let nameSeq = 0;
const visitorName = () => {
  const i = nameSeq++;
  return `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
};

interface Org {
  id: string;
  site: string;
  host: string;
  key: string;
}

export async function main(): Promise<void> {
  const db = await benchDatabase('desk');
  const { url } = db;
  const ds = await createDataSource({ url, poolSize: 2, applicationName: 'bench' }).initialize();
  const s = platformServices(ds);
  const operator = { type: 'operator' as const, id: 'bench' };
  const makeOrg = async (name: string): Promise<Org> => {
    const { organisation, sites } = await s.orgs.create(
      {
        name,
        plan: 'pro',
        country: 'GH',
        time_zone: 'Africa/Accra',
        sites: [{ name: 'HQ', time_zone: 'Africa/Accra', gates: ['Main'] }],
      },
      operator,
    );
    const host = newId('person');
    await ds.query(
      `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, can_host, active, created_at, updated_at)
       VALUES ($1, $2, false, 'Bench Host', 'host@bench.test', true, true, now(), now())`,
      [host, organisation.id],
    );
    const key = (
      await s.keys.create(
        organisation.id,
        {
          name: 'bench',
          kind: 'secret',
          mode: 'test',
          scopes: ['visits:read', 'visits:write', 'watchlist:read'],
        },
        operator,
      )
    ).key;
    return { id: organisation.id, site: sites.find((x) => !x.livemode)!.id, host, key };
  };
  const plain = await makeOrg('Bench Desk (no watchlist)');
  const listed = await makeOrg('Bench Desk (100,000 watchlist entries)');

  const t0 = Date.now();
  await ds.query(
    `INSERT INTO visitor.watchlist_entry (id, organisation_id, livemode, name, aliases, phone, email, reason, severity,
                                          created_by, created_at, updated_at)
     SELECT 'watch_seed' || i, $1, false,
            ($3::text[])[1 + i % array_length($3, 1)] || ' ' || ($5::text[])[1 + (i / 7) % array_length($5, 1)] || ' '
              || ($4::text[])[1 + (i / 3) % array_length($4, 1)],
            CASE WHEN i % 4 = 0 THEN ARRAY[($3::text[])[1 + (i + 5) % array_length($3, 1)] || ' ' || ($5::text[])[1 + i % array_length($5, 1)]] ELSE '{}' END,
            CASE WHEN i % 2 = 0 THEN '+23355' || (1000000 + i) END,
            CASE WHEN i % 3 = 0 THEN 'entry' || i || '@watch.test' END,
            'Bench entry', (ARRAY['low', 'medium', 'high'])[1 + i % 3], 'bench', now(), now()
       FROM generate_series(1, $2) i`,
    [listed.id, ENTRIES, FIRST, LAST, MIDDLE],
  );
  await ds.query(
    `INSERT INTO visitor.watchlist_name (entry_id, organisation_id, livemode, kind, value, norm)
     SELECT e.id, e.organisation_id, e.livemode, n.kind, n.value, visitor.watch_norm(n.value)
       FROM visitor.watchlist_entry e,
            LATERAL (SELECT 'name' AS kind, e.name AS value UNION ALL SELECT 'alias', unnest(e.aliases)) n
      WHERE e.organisation_id = $1`,
    [listed.id],
  );
  await ds.query('ANALYZE visitor.watchlist_entry; ANALYZE visitor.watchlist_name');
  const seedSeconds = Number(((Date.now() - t0) / 1000).toFixed(1));
  await ds.destroy();

  const app = fork(join(__dirname, 'server.js'), [], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT),
      BENCH_ORG: plain.id,
      RUN_WORKER: 'false',
      SEED_ON_FIRST_START: 'false',
      LOG_LEVEL: 'error',
      TEST_MODE_RATE_PER_MINUTE: '100000000',
      REDIS_KEY_PREFIX: `bench:${db.name}`,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    app.once('message', () => resolve());
    app.once('exit', (code) => reject(new Error(`app exited ${code}`)));
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
      for (let i = 0; i < 1000; i++) {
        await pg.query('BEGIN');
        const started = performance.now();
        await pg.query({
          name: 'bench_screen',
          text: SCREEN_SQL,
          values: [
            listed.id,
            false,
            newId('visit'),
            newId('visitor'),
            name(i),
            phone(i),
            null,
            new Date(),
            'visit.created',
          ],
        });
        times.push(performance.now() - started);
        await pg.query('ROLLBACK');
      }
      times.sort((a, b) => a - b);
      return { p50: Number(quantile(times, 0.5).toFixed(2)), p99: Number(quantile(times, 0.99).toFixed(2)) };
    };
    const misses = await time(
      () => visitorName(),
      () => nextPhone(),
    );
    const hits = await time(
      (i) =>
        `${FIRST[i % FIRST.length]} ${MIDDLE[((i / 3) | 0) % MIDDLE.length]} ${LAST[((i / 7) | 0) % LAST.length]}`,
      (i) => `+23355${1000000 + 2 * (i + 1)}`,
    );
    await pg.query('BEGIN');
    const plan = (
      await pg.query(`EXPLAIN (ANALYZE, COSTS OFF) ${SCREEN_SQL}`, [
        listed.id,
        false,
        newId('visit'),
        newId('visitor'),
        'Kwame Mensah',
        null,
        null,
        new Date(),
        'bench',
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
      `Screening statement alone (1,000 each, one connection): non-matching p50 ${misses.p50} ms, p99 ${misses.p99} ms; matching (phone and name) p50 ${hits.p50} ms, p99 ${hits.p99} ms.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/desk.md'), md);
    console.log(md);
  } finally {
    await pg.end();
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
    await db.drop();
  }
}

runIfMain(module, main);
