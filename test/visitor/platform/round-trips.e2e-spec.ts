import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from 'pg';
import Redis from 'ioredis';
import { bootTestApp, TestApp } from '../../harness';
import { call, TestOrg } from '../../support/platform-fixtures';
import { orgWithHost } from '../../support/visitor-org';
import { createEndpoint } from '../../support/webhook-fixtures';
import { postBooking, saveBookingType } from '../../support/booking-fixtures';
import { phoneFrom } from '../../support/desk-app';

/**
 * What one write costs the database and Redis: every statement the pg driver sends and every Redis command
 * ioredis sends while one request is served (and what it started, e.g. the pass hand-off after commit), counted
 * through an AsyncLocalStorage the request runs in, so the app's timers (request-log flush, sweepers) that began
 * outside it are not counted. A regression that adds a round trip to the hot writes fails here.
 */
interface Sent {
  sql: string[];
  /** Waits for the database: a statement written while its client had none in flight starts one. */
  trips: number;
  redis: string[];
}
/** Statements each client has written and not yet had answered. */
const inFlight = new WeakMap<Client, number>();
const scope = new AsyncLocalStorage<Sent>();

const pgQuery = Client.prototype.query;
const redisSend = Redis.prototype.sendCommand;
beforeAll(() => {
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : (q as { text?: string; name?: string }).text;
    const sent = scope.getStore();
    if (!sent) return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
    const waiting = inFlight.get(this) ?? 0;
    if (waiting === 0) sent.trips += 1;
    inFlight.set(this, waiting + 1);
    sent.sql.push(`${waiting ? '+ ' : ''}${String(text).replace(/\s+/g, ' ').trim().slice(0, 110)}`);
    const answered = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    const p = (pgQuery as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    if (p && typeof p.then === 'function') p.then(answered, answered);
    else answered();
    return p;
  } as typeof Client.prototype.query;
  Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
    const cmd = args[0] as { name: string; args: unknown[] };
    scope.getStore()?.redis.push(`${cmd.name}(${cmd.args.slice(0, 4).map(String).join(',').slice(0, 100)})`);
    return redisSend.apply(this, args);
  };
});
afterAll(() => {
  Client.prototype.query = pgQuery;
  Redis.prototype.sendCommand = redisSend;
});

/** Serves `send` inside a counting scope and waits a moment for what it handed off after answering. */
async function counted<T>(send: () => Promise<T>): Promise<{ res: T; sent: Sent }> {
  const sent: Sent = { sql: [], trips: 0, redis: [] };
  const res = await scope.run(sent, send);
  // The pass hand-off is added after commit on the next turn of the event loop; let it go out.
  await scope.run(sent, () => new Promise((r) => setTimeout(r, 50)));
  return { res, sent };
}

const newPhone = phoneFrom(7_000_000);

/** Prints what one request sent and checks it stays within `limit` (statements, round trips, Redis commands). */
function expectWithin(label: string, sent: Sent, limit: { sql: number; trips: number; redis: number }): void {
  process.stdout.write(
    `${label}\n  sql (${sent.sql.length} statements, ${sent.trips} round trips):\n    ${sent.sql.join('\n    ')}\n`,
  );
  process.stdout.write(`  redis (${sent.redis.length}): ${sent.redis.join(' ')}\n`);
  expect(sent.sql.length).toBeLessThanOrEqual(limit.sql);
  expect(sent.trips).toBeLessThanOrEqual(limit.trips);
  expect(sent.redis.length).toBeLessThanOrEqual(limit.redis);
}

describe('round trips of one write', () => {
  let t: TestApp;
  let org: TestOrg;
  let key: string;
  let site: string;
  let host: string;

  beforeAll(async () => {
    t = await bootTestApp({
      env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000', WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' },
    });
    ({ org, key, site, host } = await orgWithHost(t.app));
    // A subscribed endpoint, so each event also writes a delivery row.
    await createEndpoint(
      t.app,
      t.config,
      { organisationId: org.id, livemode: false },
      'https://hooks.example.test/',
      ['*'],
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const createVisit = () =>
    call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: host,
        type: 'meeting',
        visitor: { name: 'Kofi Boateng', phone: newPhone() },
      },
    });

  it('POST /v1/visits: the statements and Redis commands of one create', async () => {
    await createVisit(); // warm: first-use lookups (prepared statements, form) are not the steady state
    const { res, sent } = await counted(createVisit);
    expect(res.statusCode).toBe(201);
    expectWithin('POST /v1/visits', sent, EXPECTED.visits);
  });

  it('POST /v1/bookings (confirmed at once): the statements and Redis commands of one create', async () => {
    const tour = await saveBookingType(
      t.app,
      { organisationId: org.id, livemode: false },
      { site, host },
      {
        capacity: 1000,
      },
    );
    const d = new Date();
    const start = new Date(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1, 9),
    ).toISOString();
    await postBooking(t.app, key, newPhone(), tour.id, start);
    const { res, sent } = await counted(() => postBooking(t.app, key, newPhone(), tour.id, start));
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('confirmed');
    expectWithin('POST /v1/bookings', sent, EXPECTED.bookings);
  });
});

/** The counts as measured; lower them as round trips are removed (never raise them to make a change pass). */
const EXPECTED = {
  visits: { sql: 8, trips: 3, redis: 2 },
  bookings: { sql: 10, trips: 3, redis: 2 },
};
