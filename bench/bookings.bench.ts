/**
 * `npm run bench -- bookings`:
 * 1. `POST /v1/bookings` for a type that confirms at once (each booking also makes its visit, pass and events) from
 *    16 connections (BENCH_CONNECTIONS) booking random slots (capacity 4, half-hour slots 06:00–22:00 over 119 days:
 *    3,808 slots), against the contract floor (bare-writes.ts: bare node:http + pg, one transaction writing exactly
 *    the rows the contract requires, slot counter and its capacity check included; an organisation of its own set
 *    up alike) in three alternating rounds (BENCH_ROUNDS), medians; every round books a fresh type, so no round
 *    meets a fuller calendar than another. Conflicts (409) are counted, not failures. After each round the invariant
 *    is checked in PostgreSQL: no slot over capacity, every 201 stored, nothing stored for a 409, every slot's counter
 *    equal to its bookings; after the rounds, the rows each side stored per booking, by table. Then one run of a type
 *    that leaves bookings pending.
 * 2. `GET /v1/attendance/summary` over 31 days for 1,000 people with a shift and ~2 clock events per shift day
 *    (4 connections, then 1).
 * Reports requests/s, p50/p99, CPU per request of each server and its PostgreSQL backends, both servers' peak RSS
 * and the machine's load average; writes bench/results/bookings.{json,md}.
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
  alternating,
  benchProOrg,
  benchContext,
  benchDatabase,
  CONNECTIONS,
  cpuMeter,
  cpuPerRequest,
  cpuPerRequestLine,
  DURATION,
  loadAverage,
  Measured,
  peakRssMb,
  rowsOf,
  rowsPerCreate,
  sameRows,
  runIfMain,
  startBenchServer,
  stopBenchServer,
  WARMUP,
} from './support';

const PEOPLE = 1000;
const PORT = 40_400 + Math.floor(Math.random() * 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAYS = 119; // within the type's 120-day horizon
const SLOTS_PER_DAY = 32; // 06:00–22:00, 30 minutes
const CAPACITY = 4;

interface Outcome {
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  /** Requests answered (201, 409 or other). */
  requests: number;
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
  // The floor's own tenant, set up alike, so each side's rows can be counted apart.
  const floorOrg = await benchProOrg(ds, s, 'Bench Bookings Floor', ['bookings:write']);
  const hours = [{ start: '06:00', end: '22:00' }];
  /** A busy booking type of `o` (capacity 4, half an hour, every day 06:00–22:00, 120 days ahead). */
  const bookingType = async (o: { id: string; site: string; host: string }, pending: boolean) => {
    const id = newId('btype');
    await ds.query(
      `INSERT INTO visitor.booking_type (id, organisation_id, livemode, name, visit_type, site_id, host_ids, duration_minutes,
         capacity, requires_confirmation, weekly_hours, horizon_days, created_at, updated_at)
       VALUES ($1, $2, false, 'Busy tour', 'meeting', $3, $4, 30, $5, $6, $7, 120, now(), now())`,
      [
        id,
        o.id,
        o.site,
        [o.host],
        CAPACITY,
        pending,
        JSON.stringify(
          Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, hours])),
        ),
      ],
    );
    return id;
  };
  // A fresh type per round and side (and for warming up), so every round books into an empty calendar.
  const types = {
    warm: await bookingType({ id: org, site, host }, false),
    floorWarm: await bookingType(floorOrg, false),
    confirmed: [] as string[],
    floor: [] as string[],
    pending: await bookingType({ id: org, site, host }, true),
  };
  for (let r = 0; r < ROUNDS; r++) {
    types.confirmed.push(await bookingType({ id: org, site, host }, false));
    types.floor.push(await bookingType(floorOrg, false));
  }
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
  const floorServer = await startBenchServer(
    db,
    PORT + 1,
    { BENCH_FLOOR_ORG: floorOrg.id },
    'bare-writes.js',
  );
  const base = `http://127.0.0.1:${PORT}`;
  const floorBase = `http://127.0.0.1:${PORT + 1}`;
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

  /** An autocannon run booking random slots at `url`, recording every outcome. */
  const booking = async (url: string, type: string, seconds = DURATION): Promise<Outcome> => {
    const out: Outcome = {
      rps: 0,
      mean: 0,
      p50: 0,
      p99: 0,
      requests: 0,
      created: [],
      conflicts: 0,
      conflictNames: new Set(),
      other: 0,
      sent: 0,
      answered: 0,
    };
    const r = await autocannon({
      url,
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
    Object.assign(out, {
      rps: Math.round(r.requests.average),
      mean: r.latency.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: out.answered,
    });
    return out;
  };

  const admin = new Client({ connectionString: url });
  admin.on('error', () => undefined);
  await admin.connect();
  const meter = await cpuMeter(db, app);
  const floorMeter = await cpuMeter(db, floorServer);
  const loadBefore = loadAverage();
  try {
    const n = async (sql: string, params: unknown[]) => (await admin.query(sql, params)).rows[0].n as number;
    /** The invariant in PostgreSQL after a run of `type`. */
    const invariant = async (run: Outcome, type: string) => {
      const stored = (
        await admin.query(`SELECT id FROM visitor.booking WHERE booking_type_id = $1`, [type])
      ).rows.map((x: { id: string }) => x.id);
      const storedSet = new Set(stored);
      // Requests still in flight when the run stopped were never answered; they may have been stored.
      const unanswered = run.sent - run.answered;
      const found = {
        slots_over_capacity: await n(
          `SELECT count(*)::int AS n FROM visitor.booking_slot WHERE booking_type_id = $1 AND taken > capacity`,
          [type],
        ),
        slots_with_more_bookings_than_capacity: await n(
          `SELECT count(*)::int AS n FROM (SELECT starts_at FROM visitor.booking WHERE booking_type_id = $1
            AND status IN ('pending','confirmed') GROUP BY starts_at HAVING count(*) > $2) x`,
          [type, CAPACITY],
        ),
        created_not_stored: run.created.filter((id) => !storedSet.has(id)).length,
        conflicts_stored: await n(
          `SELECT count(*)::int AS n FROM visitor.booking WHERE booking_type_id = $1 AND attendee_name = ANY($2)`,
          [type, [...run.conflictNames]],
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
      return { unanswered, found, holds: Object.values(found).every((v) => v === 0) && run.other === 0 };
    };
    type Checked = Outcome & Measured & { invariant: Awaited<ReturnType<typeof invariant>> };
    /** One measured run of `type` at `target` with `m`'s CPU figures, then its invariant. */
    const run = async (m: typeof meter, target: string, type: string): Promise<Checked> => {
      const out = await m.around(() => booking(target, type));
      await new Promise((r) => setTimeout(r, 1000));
      return { ...out, invariant: await invariant(out, type) };
    };
    const appUrl = `${base}/v1/bookings`;
    const floorUrl = `${floorBase}/bookings`;
    await booking(floorUrl, types.floorWarm, WARMUP);
    await booking(appUrl, types.warm, WARMUP);
    await new Promise((r) => setTimeout(r, 1000));
    const before = { app: await rowsOf(admin, org), floor: await rowsOf(admin, floorOrg.id) };
    const rounds = { confirmed: [] as Checked[], floor: [] as Checked[] };
    const medians = await alternating(ROUNDS, {
      confirmed: async () => {
        const r = await run(meter, appUrl, types.confirmed[rounds.confirmed.length]);
        rounds.confirmed.push(r);
        return r;
      },
      floor: async () => {
        const r = await run(floorMeter, floorUrl, types.floor[rounds.floor.length]);
        rounds.floor.push(r);
        return r;
      },
    });
    const createdIn = (rs: Checked[]) => rs.reduce((a, r) => a + r.created.length, 0);
    const rows = {
      app: rowsPerCreate(before.app, await rowsOf(admin, org), 'visitor.booking'),
      floor: rowsPerCreate(before.floor, await rowsOf(admin, floorOrg.id), 'visitor.booking'),
    };
    const summarise = (m: Measured, rs: Checked[]) => ({
      rps: m.rps,
      p50: m.p50,
      p99: m.p99,
      app_cpu_ms: m.app_cpu_ms,
      pg_cpu_ms: m.pg_cpu_ms,
      redis_cpu_ms: m.redis_cpu_ms,
      created: createdIn(rs),
      conflicts: rs.reduce((a, r) => a + r.conflicts, 0),
      other: rs.reduce((a, r) => a + r.other, 0),
      holds: rs.every((r) => r.invariant.holds),
      rounds: rs.map((r) => ({
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        app_cpu_ms: r.app_cpu_ms,
        pg_cpu_ms: r.pg_cpu_ms,
        created: r.created.length,
        conflicts: r.conflicts,
        invariant: r.invariant,
      })),
    });
    const floor = summarise(medians.floor, rounds.floor);
    const confirmed = {
      ...summarise(medians.confirmed, rounds.confirmed),
      ratio_to_floor: Number((medians.confirmed.rps / medians.floor.rps).toFixed(3)),
      cpu_per_request: cpuPerRequest(medians.confirmed, medians.floor),
    };
    const pendingRun = await run(meter, appUrl, types.pending);
    const pending = {
      ...summarise(pendingRun, [pendingRun]),
      ratio_to_floor: Number((pendingRun.rps / medians.floor.rps).toFixed(3)),
    };

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
      rounds: ROUNDS,
      load_average_1_5_15: { before: loadBefore, after: loadAverage() },
      slots: DAYS * SLOTS_PER_DAY,
      capacity: CAPACITY,
      floor,
      bookings_confirmed_with_visit: confirmed,
      bookings_pending: pending,
      rows_per_booking: rows,
      same_rows_but_slot_counters: sameRows(rows.app, rows.floor, ['visitor.booking_slot']),
      summary_1000_people_31_days: summary,
      summary_1000_people_31_days_1_connection: summary1,
      app_peak_rss_mb: peakRssMb(app.pid as number),
      floor_peak_rss_mb: peakRssMb(floorServer.pid as number),
      targets: {
        ratio_to_floor: '≥ 0.5',
        p99_ms: '≤ 50',
        bookings_rps: '≥ 300',
        over_capacity: 0,
        summary_p99_ms: '≤ 200',
      },
    };
    mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'bench/results/bookings.json'), `${JSON.stringify(result, null, 2)}\n`);
    type Run = ReturnType<typeof summarise> & { ratio_to_floor: number };
    const row = (name: string, r: Run) =>
      `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.app_cpu_ms ?? 'n/a'} | ${r.pg_cpu_ms ?? 'n/a'} | ${r.redis_cpu_ms ?? 'n/a'} | ${r.created} | ${r.conflicts} | ${r.ratio_to_floor} | ${r.holds ? 'holds' : `BROKEN ${JSON.stringify(r.rounds.map((x) => x.invariant))}`} |`;
    const md = [
      `# bench bookings (${result.date}, ${result.machine}, ${CONNECTIONS} connections, ${DURATION} s; app and floor alternated ${ROUNDS} rounds, medians)`,
      '',
      `A fresh busy type per round and side (capacity ${CAPACITY}, ${DAYS * SLOTS_PER_DAY} half-hour slots), random slots; test mode, secret key.`,
      'Invariant after each round, in PostgreSQL: no slot over capacity, every 201 stored, no 409 stored, every slot counter equal to its bookings.',
      '',
      '| run | requests/s | p50 ms | p99 ms | server CPU ms/request | PostgreSQL CPU ms/request | Redis CPU ms/request | 201 | 409 | ratio to floor | invariant |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      row('contract floor: POST /bookings (bare node:http + pg, one transaction)', {
        ...floor,
        ratio_to_floor: 1,
      }),
      row('POST /v1/bookings, confirmed at once (visit, pass, 3 events)', confirmed),
      row('POST /v1/bookings, pending (requires_confirmation; one run after the rounds)', pending),
      `| GET /v1/attendance/summary (1,000 people × 31 days, 4 connections) | ${summary.rps} | ${summary.p50} | ${summary.p99} | | | | | | | |`,
      `| GET /v1/attendance/summary (1,000 people × 31 days, 1 connection) | ${summary1.rps} | ${summary1.p50} | ${summary1.p99} | | | | | | | |`,
      '',
      `Confirmed at once: ${confirmed.ratio_to_floor} of the contract floor (target ≥ 0.5), p99 ${confirmed.p99} ms (target ≤ 50 ms).`,
      cpuPerRequestLine(confirmed.cpu_per_request, confirmed.ratio_to_floor),
      `Rows stored per booking, by table — ${result.same_rows_but_slot_counters ? 'the same kinds and counts on both sides' : 'NOT THE SAME on both sides'}, slot counters aside (each side its own organisation; ${confirmed.created} app bookings, ${floor.created} floor bookings in the measured rounds): app ${JSON.stringify(rows.app)}; floor ${JSON.stringify(rows.floor)} (a booking_slot row is a slot's counter: a second booking of the slot counts up the row it finds, so fewer than one per booking where slots were shared).`,
      'The floor (bench/bare-writes.ts) commits in one transaction, with named prepared statements and no framework, a place on the slot counter (only while taken < capacity), the visitor upserted by phone, the visit, its pass, the booking, the events visit.created, booking.created and booking.confirmed, and the idempotency record; no credential, rate limit, slot-in-hours or reference check, pass job hand-off (docs/decisions.md).',
      `Targets: ≥ 300 bookings/s with zero over-capacity slots; summary p99 ≤ 200 ms. Peak RSS: app ${result.app_peak_rss_mb} MB, floor ${result.floor_peak_rss_mb} MB. Load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; after: ${result.load_average_1_5_15.after.join(', ')}.`,
      '',
    ].join('\n');
    writeFileSync(join(process.cwd(), 'bench/results/bookings.md'), md);
    console.log(md);
  } finally {
    await meter.close();
    await floorMeter.close();
    await admin.end();
    await stopBenchServer(app);
    await stopBenchServer(floorServer);
    await db.drop();
  }
}

runIfMain(module, main);
