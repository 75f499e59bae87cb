import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { createEndpoint, standIn } from '../../support/webhook-fixtures';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventsService } from '../../../src/visitor/events/events.service';
import { DeliveryService } from '../../../src/visitor/webhooks/delivery/delivery.service';
import { DeliveryPump } from '../../../src/visitor/webhooks/delivery/delivery-pump';
import {
  AttemptOutcome,
  claimSize,
  claimStatement,
  WebhooksRepository,
} from '../../../src/visitor/webhooks/webhooks.repository';

const DAY = 86_400_000;

/**
 * The batch paths of the delivery engine, which the tests driving one attempt at a time do not reach: claims of
 * due deliveries running at once never take one twice, and the outcomes of several attempts to one endpoint
 * recorded in one statement move its failure clock in the order they were attempted, and a stopped loop ends only
 * once what it claimed is recorded. No worker runs here (one test runs a delivery loop of its own).
 */
describe('webhook delivery in batches', () => {
  let t: TestApp;
  let pg: Client;
  let seq = 0;
  const tenant = () => ({ organisationId: `org_batches${++seq}${Date.now()}`, livemode: false });

  beforeAll(async () => {
    t = await bootTestApp({ env: { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  /** `n` events to one new endpoint; their deliveries' ids, in recording order. */
  async function deliveries(
    n: number,
    url = 'http://127.0.0.1:1/batches',
  ): Promise<{ endpointId: string; ids: string[] }> {
    const tn = tenant();
    const ep = await createEndpoint(t.app, t.config, tn, url, ['*']);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const event = await t.app
        .get(Transactions)
        .run((uow) => t.app.get(EventsService).record(uow, tn, 'visit.created', standIn({ i })));
      const { rows } = await pg.query<{ id: string }>(
        `SELECT id FROM visitor.webhook_delivery WHERE event_id = $1`,
        [event.id],
      );
      ids.push(rows[0].id);
    }
    return { endpointId: ep.id, ids };
  }

  it('claims due deliveries oldest first, and two claims at once never take the same one', async () => {
    const { ids } = await deliveries(12);
    // Due one a second apart in the past, oldest first; the last is not due yet.
    for (const [i, id] of ids.entries())
      await pg.query(`UPDATE visitor.webhook_delivery SET next_attempt_at = $2 WHERE id = $1`, [
        id,
        new Date(Date.now() + (i === 11 ? 60_000 : (i - 20) * 1000)),
      ]);
    const svc = t.app.get(DeliveryService);

    const first = await svc.claim({ limit: 3 });
    expect(first.ready.map((d) => d.delivery.id).sort()).toEqual(ids.slice(0, 3).sort());
    const [a, b] = await Promise.all([svc.claim({ limit: 4 }), svc.claim({ limit: 4 })]);
    const taken = [...a.ready, ...b.ready].map((d) => d.delivery.id);
    expect(taken).toHaveLength(8);
    expect(new Set([...taken, ...first.ready.map((d) => d.delivery.id)])).toEqual(new Set(ids.slice(0, 11)));
    expect((await svc.claim({ limit: 4 })).claimed).toBe(0); // all claimed, and the last not due

    const { rows } = await pg.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM visitor.webhook_delivery WHERE id = ANY($1) AND locked_until > now()`,
      [ids],
    );
    expect(rows[0].n).toBe(11);
  });

  it('claims of a size PostgreSQL plans once: by key, not by hashing a backlog of 20,000, from the sixth claim on', async () => {
    // A backlog not yet due (no other claim takes it), in a tenant of its own, removed with its events at the end.
    const tn = tenant();
    const ep = await createEndpoint(t.app, t.config, tn, 'http://127.0.0.1:1/plan', ['*']);
    await pg.query(
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body)
       SELECT 'evt_plan' || i, $1, $2, 'visit.created', now(), '{}' FROM generate_series(1, 20000) i`,
      [tn.organisationId, tn.livemode],
    );
    await pg.query(
      `INSERT INTO visitor.webhook_delivery (id, organisation_id, livemode, event_id, endpoint_id, status, next_attempt_at,
                                            created_at, updated_at)
       SELECT 'dlv_plan' || i, $1, $2, 'evt_plan' || i, $3, 'pending', '2100-01-01'::timestamptz + i * interval '1 s',
              now(), now()
         FROM generate_series(1, 20000) i`,
      [tn.organisationId, tn.livemode, ep.id],
    );
    await pg.query('ANALYZE visitor.webhook_delivery');
    try {
      const size = claimSize(150);
      expect(size).toBe(128);
      const { text } = claimStatement(size);
      await pg.query(`PREPARE plan_test(timestamptz, text, text[]) AS ${text}`);
      await pg.query('SET plan_cache_mode = force_generic_plan');
      const plan = (await pg.query(`EXPLAIN (COSTS OFF) EXECUTE plan_test(now(), '10000', '{pro}')`)).rows
        .map((r: Record<string, string>) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Index Scan using webhook_delivery_pkey on webhook_delivery d/);
      expect(plan).not.toMatch(/Seq Scan on webhook_delivery/);
      // Left to choose, PostgreSQL keeps that plan instead of planning each claim anew.
      await pg.query('SET plan_cache_mode = auto');
      await pg.query('BEGIN');
      for (let i = 0; i < 7; i++) await pg.query(`EXECUTE plan_test(now(), '10000', '{pro}')`);
      await pg.query('ROLLBACK');
      const { rows } = await pg.query<{ generic_plans: string }>(
        `SELECT generic_plans FROM pg_prepared_statements WHERE name = 'plan_test'`,
      );
      expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
    } finally {
      await pg.query('DEALLOCATE ALL');
      await pg.query(`DELETE FROM visitor.event WHERE organisation_id = $1`, [tn.organisationId]);
    }
  });

  it('rounds a claim down to a claim size, leaving less than 30 % of the wish', () => {
    expect(claimSize(0)).toBe(0);
    const sizes = [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256];
    expect([...new Set(Array.from({ length: 300 }, (_, i) => claimSize(i + 1)))]).toEqual(sizes);
    for (let wish = 1; wish <= 5000; wish++) {
      const size = claimSize(wish);
      expect(size).toBeLessThanOrEqual(wish);
      expect((wish - size) / wish).toBeLessThan(0.3);
    }
  });

  it('records several outcomes of one endpoint in one statement, its failure clock in attempt order', async () => {
    const { endpointId, ids } = await deliveries(3);
    const repo = t.app.get(WebhooksRepository);
    const t0 = new Date('2031-03-01T00:00:00Z');
    const at = (days: number) => new Date(t0.getTime() + days * DAY);
    const outcome = (deliveryId: string, attemptedAt: Date, succeeded: boolean): AttemptOutcome => ({
      deliveryId,
      endpointId,
      attemptNumber: 1,
      attemptedAt,
      statusCode: succeeded ? 204 : 500,
      durationMs: 3,
      error: succeeded ? null : 'receiver answered 500',
      excerpt: null,
      succeeded,
      nextAttemptAt: succeeded ? null : new Date(attemptedAt.getTime() + 5_000),
    });
    const endpoint = async () =>
      (
        await pg.query(
          `SELECT status, disabled_reason, failing_since FROM visitor.webhook_endpoint WHERE id = $1`,
          [endpointId],
        )
      ).rows[0];

    // A failure, a later success, a later failure (listed out of order): the clock starts at the last failure.
    expect(
      await repo.recordOutcome(
        [outcome(ids[2], at(0.2), false), outcome(ids[0], at(0), false), outcome(ids[1], at(0.1), true)],
        5 * DAY,
      ),
    ).toEqual([]);
    expect(await endpoint()).toMatchObject({ status: 'enabled', failing_since: at(0.2) });
    const { rows } = await pg.query(
      `SELECT d.id, d.status, d.attempt_count, d.first_failure_at, count(a.id)::int AS attempts
         FROM visitor.webhook_delivery d LEFT JOIN visitor.webhook_attempt a ON a.delivery_id = d.id
        WHERE d.id = ANY($1) GROUP BY d.id`,
      [ids],
    );
    expect(new Map(rows.map((r) => [r.id, r]))).toEqual(
      new Map([
        [ids[0], { id: ids[0], status: 'pending', attempt_count: 1, first_failure_at: at(0), attempts: 1 }],
        [ids[1], { id: ids[1], status: 'succeeded', attempt_count: 1, first_failure_at: null, attempts: 1 }],
        [ids[2], { id: ids[2], status: 'pending', attempt_count: 1, first_failure_at: at(0.2), attempts: 1 }],
      ]),
    );

    // Failures only: the clock keeps its start; past 5 days at the latest failure, the endpoint is disabled once.
    const again = (id: string, days: number) => ({ ...outcome(id, at(days), false), attemptNumber: 2 });
    expect(await repo.recordOutcome([again(ids[0], 3), again(ids[2], 5.3)], 5 * DAY)).toEqual([endpointId]);
    expect(await endpoint()).toMatchObject({
      status: 'disabled',
      disabled_reason: 'failing',
      failing_since: at(0.2),
    });
    expect(await repo.recordOutcome([{ ...again(ids[0], 6), attemptNumber: 3 }], 5 * DAY)).toEqual([]);
  });

  it('a success after failures in one statement clears the clock', async () => {
    const { endpointId, ids } = await deliveries(2);
    await pg.query(`UPDATE visitor.webhook_endpoint SET failing_since = $2 WHERE id = $1`, [
      endpointId,
      new Date(Date.now() - 6 * DAY),
    ]);
    const base = { endpointId, attemptNumber: 1, durationMs: 3, excerpt: null };
    const now = Date.now();
    expect(
      await t.app.get(WebhooksRepository).recordOutcome(
        [
          {
            ...base,
            deliveryId: ids[0],
            attemptedAt: new Date(now),
            statusCode: 500,
            error: 'receiver answered 500',
            succeeded: false,
            nextAttemptAt: new Date(now + 5_000),
          },
          {
            ...base,
            deliveryId: ids[1],
            attemptedAt: new Date(now + 1),
            statusCode: 204,
            error: null,
            succeeded: true,
            nextAttemptAt: null,
          },
        ],
        5 * DAY,
      ),
    ).toEqual([]);
    const { rows } = await pg.query(
      `SELECT status, failing_since FROM visitor.webhook_endpoint WHERE id = $1`,
      [endpointId],
    );
    expect(rows[0]).toEqual({ status: 'enabled', failing_since: null });
  });

  it('a loop stopped while its POSTs are under way ends once every delivery it claimed is sent and recorded', async () => {
    let received = 0;
    const slow = createServer((req, res) => {
      received++;
      req.resume();
      setTimeout(() => res.writeHead(204).end(), 300);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const { ids } = await deliveries(6, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`);
      const pump = new DeliveryPump(t.app.get(DeliveryService), 2, new Logger('batches'));
      pump.start(60_000);
      while (received === 0) await new Promise((r) => setTimeout(r, 10));
      await pump.stop();
      const { rows } = await pg.query<{ status: string; locked_until: Date | null }>(
        `SELECT status, locked_until FROM visitor.webhook_delivery WHERE id = ANY($1)`,
        [ids],
      );
      // Claimed ones (two sending, more ready) were all sent and recorded; none is left under a claim.
      expect(rows.filter((r) => r.status === 'succeeded')).toHaveLength(received);
      expect(received).toBeGreaterThanOrEqual(2);
      expect(rows.filter((r) => r.locked_until !== null)).toEqual([]);
    } finally {
      await new Promise((r) => slow.close(r));
    }
  });
  // Last in this file: it empties the deliveries of this file's database.
  it('a TRUNCATE of the deliveries empties their attempts too (no foreign key carries it)', async () => {
    const { ids } = await deliveries(1);
    await pg.query(
      `INSERT INTO visitor.webhook_attempt (delivery_id, attempt_number, attempted_at, duration_ms) VALUES ($1, 1, now(), 1)`,
      [ids[0]],
    );
    const attempts = async () =>
      (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM visitor.webhook_attempt`)).rows[0].n;
    expect(await attempts()).toBeGreaterThan(0);
    await pg.query('TRUNCATE visitor.webhook_delivery');
    expect(await attempts()).toBe(0);
  });
});
