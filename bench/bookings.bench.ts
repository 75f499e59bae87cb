/**
 * `npm run bench -- bookings`:
 * 1. `POST /v1/bookings` from 64 connections (BENCH_BOOKING_CONNECTIONS) booking random slots of one busy booking
 *    type (capacity 2, half-hour slots, 06:00–22:00, 90 days: 2,880 slots) for BENCH_SECONDS, twice: a type that
 *    confirms at once (each booking also makes its visit, pass and events) and a type that leaves bookings pending;
 *    against the floor `POST /v1/__bench/bookings` (the same slot counter upsert and one plain INSERT, chain off)
 *    in the same run. Conflicts (409) are expected; after each run the invariant is checked in PostgreSQL: no slot
 *    over capacity, every 201 stored, nothing stored for a 409, every slot's counter equal to its bookings.
 * 2. `GET /v1/attendance/summary` over 31 days for 1,000 people with a shift and ~2 clock events per shift day
 *    (4 connections, then 1).
 * Reports requests/s, p50/p99 and the app's peak RSS; writes bench/results/bookings.{json,md}.
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { DataSource } from 'typeorm';
import { platformServices } from '../src/visitor/visitor.command';
import {
  benchProOrg,
  benchContext,
  benchDatabase,
  DURATION,
  peakRssMb,
  runIfMain,
  startBenchServer,
  stopBenchServer,
} from './support';

const CONNECTIONS = Number(process.env.BENCH_BOOKING_CONNECTIONS ?? 64);
const PEOPLE = 1000;
const PORT = 40_400 + Math.floor(Math.random() * 500);
const DAYS = 90;
const SLOTS_PER_DAY = 32; // 06:00–22:00, 30 minutes

interface Outcome {
  rps: number;
  p50: number;
  p99: number;
  created: string[];
  conflicts: number;
  /** Attendee names (one per request) of the requests answered 409. */
  conflictNames: Set<string>;
  other: number;
  sent: number;
  answered: number;
}

let phoneSeq = 2_000_000;
const nextPhone = () => `+23324${phoneSeq++}`;

export async function main(): Promise<void> {
  const db = await benchDatabase('bookings');
  const { url } = db;
  const graph = await benchContext(db);
  const ds = graph.get(DataSource);
  const s = platformServices(graph);
  const {
    id: org,
    site,
    host,
    key,
  } = await benchProOrg(ds, s, 'Bench Bookings', ['bookings:read', 'bookings:write', 'attendance:read']);
  // Two busy types, one run each: bookings confirmed at once (with their visit), and bookings left pending.
  const types = { confirmed: newId('btype'), pending: newId('btype') };
  const hours = [{ start: '06:00', end: '22:00' }];
  for (const [mode, id] of Object.entries(types))
    await ds.query(
      `INSERT INTO visitor.booking_type (id, organisation_id, livemode, name, visit_type, site_id, host_ids, duration_minutes,
         capacity, requires_confirmation, weekly_hours, horizon_days, created_at, updated_at)
       VALUES ($1, $2, false, 'Busy tour', 'meeting', $3, $4, 30, 2, $5, $6, 120, now(), now())`,
      [
        id,
        org,
        site,
        [host],
        mode === 'pending',
        JSON.stringify(
          Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, hours])),
        ),
      ],
    );
  // Attendance: 1,000 people on one Monday–Friday shift, two clock events per shift day over 31 days.
  const shift = newId('shift');
  await ds.query(
    `INSERT INTO visitor.shift (id, organisation_id, livemode, name, site_id, start_time, end_time, grace_minutes, days_of_week, created_at, updated_at)
     VALUES ($1, $2, false, 'Day', $3, '09:00', '17:00', 10, '{1,2,3,4,5}', now(), now())`,
    [shift, org, site],
  );
  await ds.query(
    `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, employee_number, can_host, active, created_at, updated_at)
     SELECT 'person_bench' || i, $1, false, 'Staff ' || i, 'staff' || i || '@bench.test', 'E' || i, false, true, now(), now()
       FROM generate_series(1, $2) i`,
    [org, PEOPLE],
  );
  await ds.query(
    `INSERT INTO visitor.shift_assignment (organisation_id, livemode, person_id, shift_id)
     SELECT $1, false, 'person_bench' || i, $2 FROM generate_series(1, $3) i`,
    [org, shift, PEOPLE],
  );
  const from = '2026-03-01';
  const to = '2026-03-31';
  await ds.query(
    `INSERT INTO visitor.attendance_event (id, organisation_id, livemode, person_id, site_id, direction, occurred_at, local_date, method, offline, late_minutes, shift_id, created_at)
     SELECT 'attendance_b' || i || '_' || d::date || '_' || dir, $1, false, 'person_bench' || i, $2, dir,
            d + CASE WHEN dir = 'in' THEN interval '9 hours' + (i % 30) * interval '1 minute' ELSE interval '17 hours' END,
            d::date, 'card', false, CASE WHEN dir = 'in' THEN CASE WHEN i % 30 > 10 THEN i % 30 ELSE 0 END END,
            CASE WHEN dir = 'in' THEN $3 END, now()
       FROM generate_series(1, $4) i, generate_series($5::date, $6::date, interval '1 day') d, unnest(ARRAY['in', 'out']) dir
      WHERE extract(isodow FROM d) < 6 AND i % 17 <> (extract(day FROM d)::int % 17)`,
    [org, site, shift, PEOPLE, from, to],
  );
  await ds.query('ANALYZE');
  await graph.close();

  const app = await startBenchServer(db, PORT, {
    BENCH_ORG: org,
    TEST_MODE_RATE_PER_MINUTE: '100000000',
  });
  const base = `http://127.0.0.1:${PORT}`;
  const auth = { authorization: `Bearer ${key}` };
  const tomorrow = Date.UTC(
    new Date().getUTCFullYear(),
    new Date().getUTCMonth(),
    new Date().getUTCDate() + 1,
    6,
  );
  const randomSlot = () =>
    new Date(
      tomorrow +
        Math.floor(Math.random() * DAYS) * 86_400_000 +
        Math.floor(Math.random() * SLOTS_PER_DAY) * 1_800_000,
    ).toISOString();

  /** An autocannon run booking random slots at `path`, recording every outcome. */
  const booking = async (path: string, type: string, seconds = DURATION): Promise<Outcome> => {
    const out: Outcome = {
      rps: 0,
      p50: 0,
      p99: 0,
      created: [],
      conflicts: 0,
      conflictNames: new Set(),
      other: 0,
      sent: 0,
      answered: 0,
    };
    const r = await autocannon({
      url: `${base}${path}`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      requests: [
        {
          setupRequest: (req: autocannon.Request, ctx: object) => {
            const context = ctx as { name?: string };
            out.sent++;
            context.name = `Bench ${out.sent}`;
            return {
              ...req,
              headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
              body: JSON.stringify({
                booking_type_id: type,
                start: randomSlot(),
                attendee: { name: context.name, phone: nextPhone() },
              }),
            };
          },
          onResponse: (status: number, body: string, ctx: object) => {
            const context = ctx as { name?: string };
            out.answered++;
            if (status === 201) out.created.push((JSON.parse(body) as { id: string }).id);
            else if (status === 409) {
              out.conflicts++;
              out.conflictNames.add(String(context.name));
            } else out.other++;
          },
        },
      ],
    });
    Object.assign(out, { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99 });
    return out;
  };

  const admin = new Client({ connectionString: url });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const reset = async () => {
      // in-flight requests of the previous run finish first
      await new Promise((r) => setTimeout(r, 2000));
      await admin.query(
        `DELETE FROM visitor.booking; DELETE FROM visitor.booking_slot; DELETE FROM visitor.visit WHERE booking_id IS NOT NULL`,
      );
    };
    await booking('/v1/__bench/bookings', types.pending, 2);
    await reset();
    const floor = await booking('/v1/__bench/bookings', types.pending);

    /** One measured run of a type, then the invariant in PostgreSQL. */
    const measure = async (type: string) => {
      await reset();
      await booking('/v1/bookings', type, 2); // warm-up
      await reset();
      const run = await booking('/v1/bookings', type);
      await new Promise((r) => setTimeout(r, 2000));
      const n = async (sql: string, params: unknown[]) =>
        (await admin.query(sql, params)).rows[0].n as number;
      const stored = (
        await admin.query(`SELECT id FROM visitor.booking WHERE booking_type_id = $1`, [type])
      ).rows.map((x: { id: string }) => x.id);
      const storedSet = new Set(stored);
      // Requests still in flight when the run stopped were never answered; they may have been stored.
      const unanswered = run.sent - run.answered;
      const invariant = {
        slots_over_capacity: await n(
          `SELECT count(*)::int AS n FROM visitor.booking_slot WHERE booking_type_id = $1 AND taken > capacity`,
          [type],
        ),
        slots_with_more_bookings_than_capacity: await n(
          `SELECT count(*)::int AS n FROM (SELECT starts_at FROM visitor.booking WHERE booking_type_id = $1
            AND status IN ('pending','confirmed') GROUP BY starts_at HAVING count(*) > 2) x`,
          [type],
        ),
        created_not_stored: run.created.filter((id) => !storedSet.has(id)).length,
        conflicts_stored: await n(
          `SELECT count(*)::int AS n FROM visitor.booking WHERE attendee_name = ANY($1)`,
          [[...run.conflictNames]],
        ),
        stored_beyond_created_and_unanswered: Math.max(0, stored.length - run.created.length - unanswered),
        counters_not_matching_bookings: await n(
          `SELECT count(*)::int AS n FROM visitor.booking_slot s
            WHERE s.booking_type_id = $1 AND s.taken <> (SELECT count(*) FROM visitor.booking b
                   WHERE b.booking_type_id = s.booking_type_id AND b.starts_at = s.starts_at
                     AND b.status IN ('pending', 'confirmed'))`,
          [type],
        ),
      };
      return {
        rps: run.rps,
        p50: run.p50,
        p99: run.p99,
        created: run.created.length,
        conflicts: run.conflicts,
        other: run.other,
        unanswered,
        ratio_to_floor: Number((run.rps / floor.rps).toFixed(3)),
        invariant,
        holds: Object.values(invariant).every((v) => v === 0) && run.other === 0,
      };
    };
    const confirmed = await measure(types.confirmed);
    const pending = await measure(types.pending);

    // The summary: 1,000 people × 31 days.
    const summaryUrl = `${base}/v1/attendance/summary?from=${from}&to=${to}`;
    await autocannon({ url: summaryUrl, headers: auth, connections: 2, duration: 2 });
    const sr = await autocannon({ url: summaryUrl, headers: auth, connections: 4, duration: DURATION });
    if (sr.non2xx > 0 || sr.errors > 0) throw new Error(`summary: ${sr.non2xx} non-2xx, ${sr.errors} errors`);
    const summary = { rps: Math.round(sr.requests.average), p50: sr.latency.p50, p99: sr.latency.p99 };
    const s1 = await autocannon({ url: summaryUrl, headers: auth, connections: 1, duration: DURATION });
    if (s1.non2xx > 0 || s1.errors > 0) throw new Error(`summary: ${s1.non2xx} non-2xx, ${s1.errors} errors`);
    const summary1 = { rps: Math.round(s1.requests.average), p50: s1.latency.p50, p99: s1.latency.p99 };

    const result = {
      date: new Date().toISOString(),
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
      duration_s: DURATION,
      connections: CONNECTIONS,
      slots: DAYS * SLOTS_PER_DAY,
      capacity: 2,
      floor: {
        rps: floor.rps,
        p50: floor.p50,
        p99: floor.p99,
        created: floor.created.length,
        conflicts: floor.conflicts,
      },
      bookings_confirmed_with_visit: confirmed,
      bookings_pending: pending,
      summary_1000_people_31_days: summary,
      summary_1000_people_31_days_1_connection: summary1,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      targets: { bookings_rps: '≥ 300', over_capacity: 0, summary_p99_ms: '≤ 200' },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/bookings.json'), `${JSON.stringify(result, null, 2)}\n`);
    type Run = typeof confirmed;
    const row = (name: string, r: Run) =>
      `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.created} | ${r.conflicts} | ${r.ratio_to_floor} | ${r.holds ? 'holds' : `BROKEN ${JSON.stringify(r.invariant)}`} |`;
    const md = [
      `# bench bookings (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s)`,
      '',
      `One busy type per run (capacity 2, ${DAYS * SLOTS_PER_DAY} half-hour slots), random slots; test mode, secret key.`,
      'Invariant after each run, in PostgreSQL: no slot over capacity, every 201 stored, no 409 stored, every slot counter equal to its bookings.',
      '',
      '| run | requests/s | p50 ms | p99 ms | 201 | 409 | ratio to floor | invariant |',
      '|---|---|---|---|---|---|---|---|',
      `| POST /v1/__bench/bookings (floor: counter upsert + INSERT, chain off) | ${floor.rps} | ${floor.p50} | ${floor.p99} | ${floor.created.length} | ${floor.conflicts} | 1 | |`,
      row('POST /v1/bookings, confirmed at once (visit, pass, 3 events)', confirmed),
      row('POST /v1/bookings, pending (requires_confirmation)', pending),
      `| GET /v1/attendance/summary (1,000 people × 31 days, 4 connections) | ${summary.rps} | ${summary.p50} | ${summary.p99} | | | | |`,
      `| GET /v1/attendance/summary (1,000 people × 31 days, 1 connection) | ${summary1.rps} | ${summary1.p50} | ${summary1.p99} | | | | |`,
      '',
      `Targets: ≥ 300 bookings/s with zero over-capacity slots; summary p99 ≤ 200 ms. App peak RSS ${result.app_peak_rss_mb} MB.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/bookings.md'), md);
    console.log(md);
  } finally {
    await admin.end();
    await stopBenchServer(app);
    await db.drop();
  }
}

runIfMain(module, main);
