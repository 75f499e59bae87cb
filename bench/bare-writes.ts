/**
 * The contract floor under `POST /v1/visits` and `POST /v1/bookings` (benches visits and bookings), in its own
 * process: bare `node:http` and a `pg` pool with named prepared statements — no framework, no TypeORM, no Redis,
 * no credential, rate limit, validation, reference or form checks. Each create commits, in one transaction, exactly
 * the rows the contract and the schema require of the app's create, for the tenant BENCH_FLOOR_ORG (test mode):
 *
 * - `POST /visits` — the visitor upserted by phone (the tenant's record with that number, refreshed), the visit, its
 *   pending pass, the `visit.created` event (the outbox; test mode also notifies the event streams, as the app does)
 *   and the idempotency record holding the response. Two round trips: BEGIN and the visit's statement; the record's
 *   statement and COMMIT.
 * - `POST /bookings` — for a type that confirms at once: a place of the slot taken on its counter row, only while
 *   `taken < capacity` (capacity read from the booking type in the same statement; full → 409, nothing written), the
 *   visitor upserted by phone, the visit, its pass, the booking, the events `visit.created`, `booking.created`,
 *   `booking.confirmed` and the idempotency record. Two round trips: BEGIN, the slot's place, the visit's statement
 *   and the booking's INSERT; the record's statement and COMMIT. The type's columns the visit and booking copy are
 *   read once per process (the app keeps them too: ReferenceCache).
 *
 * The floor uses what plain pg offers the app as well: the pool's clients in pipeline mode, a transaction's
 * statements written one after the other without waiting (in one socket write), BEGIN with the first and COMMIT
 * with the last. So a refusal is an error that aborts the transaction: the slot's place fails when the slot is
 * full (409), and the idempotency record is a plain INSERT, whose unique violation when the key was used already
 * turns COMMIT into a rollback and answers the stored response (or 422 when the body differs): a retry writes
 * nothing twice. The pass job's hand-off (a Redis call after commit in the app) is not a row and is left out; no
 * webhook endpoint exists in the benches, so neither side writes a delivery row. Bodies have the app's shape (same
 * keys, same order).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PoolClient } from 'pg';
import { barePool, serveBare } from './bare-server';
import { newId } from '../src/common/ids';
import { allAnswered, writeTogether } from '../src/database/pipeline';

const ORG = String(process.env.BENCH_FLOOR_ORG);
const LIVEMODE = false;
const CHANNELS = ['whatsapp', 'sms', 'email'];
const JSON_TYPE = 'application/json; charset=utf-8';

const pool = barePool('bench-floor', { pipeline: true });

/** Visitor (upsert by phone), visit and pending pass in one statement; returns the visitor as stored. */
const VISIT = `
  WITH r AS (
    INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, email, company, last_visit_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $6, $6)
    ON CONFLICT (organisation_id, livemode, phone) WHERE phone IS NOT NULL DO UPDATE
       SET name = EXCLUDED.name, last_visit_at = EXCLUDED.last_visit_at, updated_at = EXCLUDED.updated_at
    RETURNING id, name, phone, email, company
  ), v AS (
    INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, gate_id, host_id,
                               visitor_id, purpose, expected_at, expected_until, pass_channels, custom_fields,
                               booking_id, created_at, updated_at)
    SELECT $7, $2, $3, 'expected', $8, $9, $10, NULL, $11, r.id, $12, $13, $14, $15, '{}', $16, $6, $6 FROM r
    RETURNING id
  ), p AS (
    INSERT INTO visitor.visit_pass (id, organisation_id, livemode, visit_id, channels, status, created_at)
    SELECT $17, $2, $3, v.id, $15, 'pending', $6 FROM v
  )
  SELECT id, name, phone, email, company FROM r`;

/**
 * The idempotency record and the events ($4: ids, $5: types, $6: bodies), with their notification. A key used
 * already fails the INSERT (unique violation), which aborts the transaction.
 */
const RECORD = `
  WITH k AS (
    INSERT INTO visitor.idempotency_key (organisation_id, livemode, key, request_hash, state, locked_until,
                                         response_status, response_type, response_body, created_at)
    VALUES ($1, $2, $7, $8, 'done', $3, 201, '${JSON_TYPE}', $9, $3)
  ), e AS (
    INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body, request_id)
    SELECT x.id, $1, $2, x.type, $3, x.body, $10 FROM unnest($4::text[], $5::text[], $6::text[]) x(id, type, body)
    RETURNING organisation_id || ' ' || id AS note
  )
  SELECT pg_notify('gatehouse_event', note) FROM e`;

const STORED = `SELECT request_hash, response_body FROM visitor.idempotency_key
                 WHERE organisation_id = $1 AND livemode = $2 AND key = $3`;

/** The columns of a booking type that its bookings' visits and rows copy (read once per process and type). */
const TYPE = `SELECT name, visit_type, site_id, host_ids[1] AS host_id, duration_minutes FROM visitor.booking_type
               WHERE id = $1 AND organisation_id = $2 AND livemode = $3`;

/**
 * A place of the slot, while taken < the type's capacity (read from the type in the statement); a full slot fails
 * the statement (division by zero, SQLSTATE 22012: the floor's 409), which aborts the transaction.
 */
const TAKE = `
  WITH s AS (
    INSERT INTO visitor.booking_slot AS s (booking_type_id, starts_at, organisation_id, livemode, capacity, taken)
    SELECT t.id, $2, $3, $4, t.capacity, 1
      FROM visitor.booking_type t WHERE t.id = $1 AND t.organisation_id = $3 AND t.livemode = $4
    ON CONFLICT (booking_type_id, starts_at) DO UPDATE SET taken = s.taken + 1
     WHERE s.taken < EXCLUDED.capacity AND s.organisation_id = $3 AND s.livemode = $4
    RETURNING taken
  )
  SELECT 1 / (SELECT count(*)::int FROM s) AS taken`;

const BOOKING = `
  INSERT INTO visitor.booking (id, organisation_id, livemode, booking_type_id, status, source, starts_at, ends_at,
    site_id, host_id, attendee_name, attendee_phone, custom_fields, visit_id, confirmed_at,
    share_reason_with_attendee, created_at, updated_at)
  VALUES ($1, $2, $3, $4, 'confirmed', 'api', $5, $6, $7, $8, $9, $10, '{}', $11, $12, false, $12, $12)`;

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(body);
  }
}

const hashOf = (path: string, body: string) =>
  createHash('sha256').update(path).update(body).digest('base64url');

const envelope = (id: string, type: string, at: string, object: string) =>
  `{"id":"${id}","type":"${type}","created_at":"${at}","organisation_id":"${ORG}","livemode":${LIVEMODE},"data":{"object":${object}}}`;

/** SQLSTATEs the floor answers for: a key used already, a full slot. */
const KEY_USED = '23505';
const SLOT_FULL = '22012';

const sqlState = (e: unknown) => (e as { code?: string }).code;
/** The idempotency record's INSERT failed on its key: the key was used already. */
const keyUsed = (e: unknown) =>
  sqlState(e) === KEY_USED && (e as { table?: string }).table === 'idempotency_key';

/**
 * A create in one transaction of two round trips: BEGIN and `work`'s statements (written at once, none awaited in
 * between); the idempotency record, the events and COMMIT. A key used already answers its stored response (or
 * 422); `work` throws a Refusal to answer without writing (after ROLLBACK).
 */
async function inTransaction(
  key: string,
  hash: string,
  work: (c: PoolClient) => Promise<{ response: string; at: Date; events: [string, string][] }>,
): Promise<string> {
  const c = await pool.connect();
  try {
    try {
      writeTogether(c);
      const begin = c.query('BEGIN');
      const [, { response, at, events }] = await allAnswered([begin, work(c)]);
      const iso = at.toISOString();
      const ids = events.map(() => newId('evt'));
      writeTogether(c);
      const record = c.query({
        name: 'floor_record',
        text: RECORD,
        values: [
          ORG,
          LIVEMODE,
          at,
          ids,
          events.map(([type]) => type),
          events.map(([type, object], i) => envelope(ids[i], type, iso, object)),
          key,
          hash,
          response,
          newId('req'),
        ],
      });
      // COMMIT of a transaction the record's INSERT aborted ends it as a rollback.
      await allAnswered([record, c.query('COMMIT')]);
      return response;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      // A used key answers its stored response, also when the retry was refused before its record (a full slot).
      const refused = e instanceof Refusal && e.status === 409;
      if (!keyUsed(e) && !refused) throw e;
      const stored = await c.query({ name: 'floor_stored', text: STORED, values: [ORG, LIVEMODE, key] });
      const row = stored.rows[0] as { request_hash: string; response_body: string } | undefined;
      if (!row && refused) throw e;
      if (!row || row.request_hash !== hash)
        throw new Refusal(422, '{"error":{"code":"IDEMPOTENCY_KEY_REUSED"}}');
      return row.response_body;
    }
  } finally {
    c.release();
  }
}

interface VisitBody {
  site_id: string;
  host_id: string;
  type: string;
  visitor: { name: string; phone: string };
}

function visitJson(
  v: {
    id: string;
    type: string;
    source: string;
    site: string;
    host: string;
    purpose: string;
    at: string | null;
    until: string | null;
    booking: string | null;
    created: string;
  },
  visitor: { id: string; name: string; phone: string; email: string | null; company: string | null },
): string {
  return JSON.stringify({
    id: v.id,
    status: 'expected',
    type: v.type,
    source: v.source,
    site_id: v.site,
    gate_id: null,
    host_id: v.host,
    visitor: {
      id: visitor.id,
      name: visitor.name,
      phone: visitor.phone,
      email: visitor.email,
      company: visitor.company,
    },
    purpose: v.purpose,
    expected_at: v.at,
    expected_until: v.until,
    checked_in_at: null,
    checked_out_at: null,
    cancelled_at: null,
    cancel_reason: null,
    decision: null,
    booking_id: v.booking,
    pass: { channels: CHANNELS, last_sent_at: null },
    custom_fields: {},
    created_at: v.created,
    updated_at: v.created,
  });
}

/** The visitor, visit and pass of a create (one statement); returns the visit's JSON. */
async function writeVisit(
  c: PoolClient,
  now: Date,
  v: {
    type: string;
    source: string;
    site: string;
    host: string;
    purpose: string;
    at: Date | null;
    until: Date | null;
    booking: string | null;
  },
  visitor: { name: string; phone: string },
  id = newId('visit'),
): Promise<{ id: string; json: string }> {
  const r = await c.query({
    name: 'floor_visit',
    text: VISIT,
    values: [
      newId('visitor'),
      ORG,
      LIVEMODE,
      visitor.name.trim(),
      visitor.phone,
      now,
      id,
      v.type,
      v.source,
      v.site,
      v.host,
      v.purpose,
      v.at,
      v.until,
      CHANNELS,
      v.booking,
      newId('pass'),
    ],
  });
  const iso = now.toISOString();
  return {
    id,
    json: visitJson(
      {
        ...v,
        id,
        at: v.at && v.at.toISOString(),
        until: v.until && v.until.toISOString(),
        created: iso,
      },
      r.rows[0] as { id: string; name: string; phone: string; email: string | null; company: string | null },
    ),
  };
}

function createVisit(key: string, hash: string, b: VisitBody): Promise<string> {
  return inTransaction(key, hash, async (c) => {
    const now = new Date();
    const visit = await writeVisit(
      c,
      now,
      {
        type: b.type,
        source: 'invitation',
        site: b.site_id,
        host: b.host_id,
        purpose: '',
        at: null,
        until: null,
        booking: null,
      },
      b.visitor,
    );
    return { response: visit.json, at: now, events: [['visit.created', visit.json]] };
  });
}

interface BookingBody {
  booking_type_id: string;
  start: string;
  attendee: { name: string; phone: string };
}

interface TypeColumns {
  name: string;
  visit_type: string;
  site_id: string;
  host_id: string;
  duration_minutes: number;
}
/** The types' columns read so far (each bench round books a type of its own). */
const types = new Map<string, Promise<TypeColumns | undefined>>();

async function createBooking(key: string, hash: string, b: BookingBody): Promise<string> {
  // Read before any statement is written, so a malformed body fails with nothing under way.
  const attendee = { name: String(b.attendee.name), phone: String(b.attendee.phone) };
  let read = types.get(b.booking_type_id);
  if (!read) {
    read = pool
      .query<TypeColumns>({ name: 'floor_type', text: TYPE, values: [b.booking_type_id, ORG, LIVEMODE] })
      .then((r) => r.rows[0]);
    types.set(b.booking_type_id, read);
    // Only a type that was found is kept.
    read.then(
      (found) => found ?? types.delete(b.booking_type_id),
      () => types.delete(b.booking_type_id),
    );
  }
  const t = await read;
  if (!t) throw new Refusal(404, '{"error":{"code":"NOT_FOUND"}}');
  return inTransaction(key, hash, async (c) => {
    const now = new Date();
    const start = new Date(b.start);
    const end = new Date(start.getTime() + t.duration_minutes * 60_000);
    const id = newId('booking');
    const visitId = newId('visit');
    const take = c.query({
      name: 'floor_take',
      text: TAKE,
      values: [b.booking_type_id, start, ORG, LIVEMODE],
    });
    const written = writeVisit(
      c,
      now,
      {
        type: t.visit_type,
        source: 'booking',
        site: t.site_id,
        host: t.host_id,
        purpose: t.name,
        at: start,
        until: end,
        booking: id,
      },
      attendee,
      visitId,
    );
    const row = c.query({
      name: 'floor_booking',
      text: BOOKING,
      values: [
        id,
        ORG,
        LIVEMODE,
        b.booking_type_id,
        start,
        end,
        t.site_id,
        t.host_id,
        attendee.name,
        attendee.phone,
        visitId,
        now,
      ],
    });
    let visit: { id: string; json: string };
    try {
      [, visit] = await allAnswered([take, written, row] as const);
    } catch (e) {
      throw sqlState(e) === SLOT_FULL ? new Refusal(409, '{"error":{"code":"CONFLICT"}}') : e;
    }
    const iso = now.toISOString();
    const booking = JSON.stringify({
      id,
      booking_type_id: b.booking_type_id,
      status: 'confirmed',
      start: start.toISOString(),
      end: end.toISOString(),
      site_id: t.site_id,
      host_id: t.host_id,
      attendee: { ...attendee, email: null, company: null },
      custom_fields: {},
      source: 'api',
      visit_id: visit.id,
      confirm_by: null,
      confirmed_at: iso,
      declined_at: null,
      decline_reason: null,
      share_reason_with_attendee: false,
      expired_at: null,
      cancelled_at: null,
      cancel_reason: null,
      rescheduled_at: null,
      created_at: iso,
      updated_at: iso,
    });
    return {
      response: booking,
      at: now,
      events: [
        ['visit.created', visit.json],
        ['booking.created', booking],
        ['booking.confirmed', booking],
      ],
    };
  });
}

const routes: Record<string, (key: string, hash: string, body: never) => Promise<string>> = {
  '/visits': createVisit,
  '/bookings': createBooking,
};

function handle(req: IncomingMessage, res: ServerResponse): void {
  const route = req.method === 'POST' ? routes[req.url ?? ''] : undefined;
  const send = (status: number, body: string) =>
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) }).end(body);
  if (!route) return void send(404, '{"error":{"code":"NOT_FOUND"}}');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    const key = req.headers['idempotency-key'];
    let body: never;
    try {
      body = JSON.parse(text) as never;
    } catch {
      return send(400, '{"error":{"code":"VALIDATION_FAILED"}}');
    }
    if (typeof key !== 'string') return send(400, '{"error":{"code":"VALIDATION_FAILED"}}');
    route(key, hashOf(req.url!, text), body).then(
      (out) => send(201, out),
      (e: unknown) => (e instanceof Refusal ? send(e.status, e.body) : send(500, JSON.stringify(String(e)))),
    );
  });
}

serveBare(handle, pool);
