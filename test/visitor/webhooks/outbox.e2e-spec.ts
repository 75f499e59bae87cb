import type { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { bootTestApp, TestApp } from '../../harness';
import type { Received, WebhookReceiver } from '../../support/webhook-receiver';
import { until } from '../../support/until';
import { createEndpoint, standIn } from '../../support/webhook-fixtures';
import { Clock } from '../../../src/common/clock';
import { Transactions, type UnitOfWork } from '../../../src/database/unit-of-work';
import { preparedQuery } from '../../../src/database/prepared';
import { PeriodicScheduler } from '../../../src/common/periodic';
import { EventEnvelope, EventsService } from '../../../src/visitor/events/events.service';
import { WebhookEndpointsService } from '../../../src/visitor/webhooks/webhook-endpoints.service';
import { LOCAL_DELIVERY_ENV, startWebhookApp, WebhookApp } from '../../support/webhook-app';
import type { EventType } from '../../../src/visitor/events/event-types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The outbox over time: events live and die with their transaction, the first attempt never waits for the
 * sweeper, rotated secrets stop signing after the overlap, events are purged after 30 days. The sweeper is
 * slowed to a minute so that anything delivered here was delivered by its own job.
 */
describe('events outbox: transactions, first attempt, rotation overlap, 30-day purge', () => {
  let w: WebhookApp;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let pg: Client;
  let noOverlap: TestApp;
  let seq = 0;
  const tenant = () => ({ organisationId: `org_outbox${++seq}${Date.now()}`, livemode: true });

  beforeAll(async () => {
    w = await startWebhookApp({ WEBHOOK_SWEEP_MS: '60000' });
    ({ t, receiver, pg } = w);
    noOverlap = await bootTestApp({
      db: t.db,
      env: { ...LOCAL_DELIVERY_ENV, RUN_WORKER: 'false', WEBHOOK_SECRET_OVERLAP_HOURS: '0' },
    });
  });
  afterAll(async () => {
    await noOverlap.close();
    await w.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const record = (tn: { organisationId: string; livemode: boolean }, type: EventType, object: unknown) =>
    t.app.get(Transactions).run((uow) => t.app.get(EventsService).record(uow, tn, type, standIn(object)));
  const count = async (sql: string, id: string) =>
    Number((await pg.query(`SELECT count(*)::int AS n FROM ${sql}`, [id])).rows[0].n);

  /** Verifies with the standardwebhooks package at the (possibly injected) time the request was signed. */
  const verifies = (secret: string, r: Received): boolean => {
    jest.useFakeTimers({
      now: Number(r.headers['webhook-timestamp']) * 1000,
      doNotFake: ['setTimeout', 'setInterval', 'setImmediate', 'nextTick', 'queueMicrotask'],
    });
    try {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    } finally {
      jest.useRealTimers();
    }
  };

  it('a failed transaction leaves no event, no delivery and sends nothing', async () => {
    const tn = tenant();
    const ep = await createEndpoint(t.app, t.config, tn, receiver.url('/ok/rollback'), ['*']);
    const change = (uow: UnitOfWork) =>
      uow.manager.query(`UPDATE visitor.webhook_endpoint SET description = 'changed' WHERE id = $1`, [ep.id]);
    const record = (uow: UnitOfWork, id: string) =>
      t.app.get(EventsService).record(uow, tn, 'visit.created', standIn({ id }));
    const recorded: EventEnvelope[] = [];
    // The work fails after recording: nothing of the transaction is written.
    await expect(
      t.app.get(Transactions).run(async (uow) => {
        await change(uow);
        recorded.push(await record(uow, 'visit_rb1'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // A statement written with the COMMIT, behind the events and their deliveries, fails: PostgreSQL rolls all back.
    await expect(
      t.app.get(Transactions).run(async (uow) => {
        await change(uow);
        recorded.push(await record(uow, 'visit_rb2'));
        uow.beforeCommit(() =>
          uow.defer(preparedQuery(uow.manager, 'outbox_test_fails', 'SELECT 1 / 0', [])),
        );
      }),
    ).rejects.toThrow('division by zero');
    for (const e of recorded) {
      expect(await count(`visitor.event WHERE id = $1`, e.id)).toBe(0);
      expect(await count(`visitor.webhook_delivery WHERE event_id = $1`, e.id)).toBe(0);
    }
    expect(await count(`visitor.webhook_endpoint WHERE description = 'changed' AND id = $1`, ep.id)).toBe(0);
    // The same transaction without the failure commits its event and its delivery (so the counts above could fail).
    const kept = await t.app.get(Transactions).run(async (uow) => {
      await change(uow);
      return record(uow, 'visit_rb3');
    });
    expect(await count(`visitor.event WHERE id = $1`, kept.id)).toBe(1);
    expect(await count(`visitor.webhook_delivery WHERE event_id = $1`, kept.id)).toBe(1);
    await until(async () => receiver.on('/ok/rollback').length >= 1, 15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/ok/rollback').map((r) => (JSON.parse(r.body) as { id: string }).id)).toEqual([
      kept.id,
    ]);
  });

  it('events of one transaction keep their order even within one millisecond; each first attempt goes out at once', async () => {
    const tn = tenant();
    const ep = await createEndpoint(t.app, t.config, tn, receiver.url('/ok/ahead'), ['*']);
    const before = Date.now();
    const events = await t.app.get(Transactions).run(async (uow) => {
      const out = [];
      for (let i = 0; i < 20; i++)
        out.push(
          await t.app
            .get(EventsService)
            .record(uow, tn, 'visit.created', standIn({ id: `visit_ahead_${i}` })),
        );
      return out;
    });
    const times = events.map((e) => Date.parse(e.created_at));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
    // Never further ahead of the wall clock than the events of the transaction itself.
    expect(times[times.length - 1]).toBeLessThanOrEqual(Date.now() + events.length);
    // The sweeper runs once a minute here: arrival within 2 s means each job found its delivery due.
    const got = await receiver.waitFor('/ok/ahead', events.length, 2000);
    expect(new Set(got.map((g) => g.headers['webhook-id']))).toEqual(new Set(events.map((e) => e.id)));
    expect(Math.max(...got.map((g) => g.at)) - before).toBeLessThan(2000);
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM visitor.webhook_attempt a JOIN visitor.webhook_delivery d ON d.id = a.delivery_id
        WHERE d.endpoint_id = $1`,
      [ep.id],
    );
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
  });

  describe('with an injected clock', () => {
    let now: Date;
    beforeEach(() => {
      jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    });

    it('a rotated secret signs alongside the new one until the overlap (24 h) ends, then stops', async () => {
      const tn = { organisationId: `org_rotate${Date.now()}`, livemode: false };
      const svc = t.app.get(WebhookEndpointsService);
      const rotatedAt = new Date('2031-03-01T00:00:00Z');
      now = rotatedAt;
      const created = await svc.create(tn, { url: receiver.url('/ok/overlap'), enabled_events: ['*'] });
      const rotated = await svc.rotateSecret(tn, created.id);

      const deliverAt = async (at: Date, n: number) => {
        now = at;
        const ev = await record(tn, 'visit.created', { id: `visit_${n}` });
        // By its id, not its place: the jump of the injected clock can expire the lease of the previous attempt
        // before its outcome is recorded, and a busy machine then sends that one again (at least once).
        const got = await until(
          async () => receiver.on('/ok/overlap').find((r) => r.headers['webhook-id'] === ev.id),
          15_000,
        );
        expect(Number(got.headers['webhook-timestamp'])).toBe(Math.floor(at.getTime() / 1000));
        return got;
      };
      const during = await deliverAt(new Date(rotatedAt.getTime() + 24 * HOUR - 60_000), 1);
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifies(rotated.secret, during)).toBe(true);
      expect(verifies(created.secret, during)).toBe(true);

      const after = await deliverAt(new Date(rotatedAt.getTime() + 24 * HOUR + 1000), 2);
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(rotated.secret, after)).toBe(true);
      expect(verifies(created.secret, after)).toBe(false);
    });

    it('with WEBHOOK_SECRET_OVERLAP_HOURS=0 the old secret stops signing at once', async () => {
      const tn = { organisationId: `org_rotate0${Date.now()}`, livemode: false };
      now = new Date('2031-03-10T00:00:00Z');
      const svc = noOverlap.app.get(WebhookEndpointsService);
      const created = await svc.create(tn, { url: receiver.url('/ok/no-overlap'), enabled_events: ['*'] });
      const rotated = await svc.rotateSecret(tn, created.id);
      const { rows } = await pg.query(
        `SELECT previous_secret_sealed, previous_secret_expires_at FROM visitor.webhook_endpoint WHERE id = $1`,
        [created.id],
      );
      expect(rows[0]).toEqual({ previous_secret_sealed: null, previous_secret_expires_at: null });
      await record(tn, 'visit.created', { id: 'visit_0' });
      const [got] = await receiver.waitFor('/ok/no-overlap', 1);
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(rotated.secret, got)).toBe(true);
      expect(verifies(created.secret, got)).toBe(false);
    });

    it('the retention job deletes events older than 30 days with their deliveries and attempts, keeps newer', async () => {
      const tn = tenant();
      await createEndpoint(t.app, t.config, tn, receiver.url('/ok/retention'), ['*']);
      const start = new Date('2031-06-01T00:00:00Z');
      now = start;
      const old = await record(tn, 'visit.created', { id: 'visit_old' });
      now = new Date(start.getTime() + 2 * DAY);
      const recent = await record(tn, 'visit.created', { id: 'visit_recent' });
      await receiver.waitFor('/ok/retention', 2);
      const attemptsOf = (eventId: string) =>
        count(
          `visitor.webhook_attempt a JOIN visitor.webhook_delivery d ON d.id = a.delivery_id WHERE d.event_id = $1`,
          eventId,
        );
      // the outcome is stored a moment after the receiver logged the request
      await until(async () => (await attemptsOf(old.id)) === 1 && (await attemptsOf(recent.id)) === 1);

      // 31 days after the old event, 29 after the recent one
      now = new Date(start.getTime() + 31 * DAY);
      expect(await t.app.get(PeriodicScheduler).run('events.purge')).toBeGreaterThanOrEqual(1);
      expect(await count(`visitor.event WHERE id = $1`, old.id)).toBe(0);
      expect(await count(`visitor.webhook_delivery WHERE event_id = $1`, old.id)).toBe(0);
      expect(await attemptsOf(old.id)).toBe(0);
      expect(await count(`visitor.event WHERE id = $1`, recent.id)).toBe(1);
      expect(await count(`visitor.webhook_delivery WHERE event_id = $1`, recent.id)).toBe(1);
      expect(await attemptsOf(recent.id)).toBe(1);
    });
  });
});
