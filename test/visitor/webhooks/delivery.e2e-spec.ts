import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { bootTestApp, TestApp } from '../../harness';
import type { WebhookReceiver } from '../../support/webhook-receiver';
import { startWebhookApp, WebhookApp } from '../../support/webhook-app';
import { createEndpoint, standIn } from '../../support/webhook-fixtures';
import { until } from '../../support/until';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventsService } from '../../../src/visitor/events/events.service';
import { EventsRepository } from '../../../src/visitor/events/events.repository';
import { DeliveryService } from '../../../src/visitor/webhooks/delivery/delivery.service';
import { Clock } from '../../../src/common/clock';
import { RETRY_WAITS_MS } from '../../../src/visitor/webhooks/delivery/retry-schedule';
import type { EventType } from '../../../src/visitor/events/event-types';

describe('webhook delivery engine', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let pg: Client;
  let orgSeq = 0;
  const tenant = () => ({ organisationId: `org_test${++orgSeq}${Date.now()}`, livemode: true });

  let w: WebhookApp;

  beforeAll(async () => {
    w = await startWebhookApp();
    ({ t, receiver, pg } = w);
  });
  afterAll(() => w.close());

  const record = (tn: { organisationId: string; livemode: boolean }, type: EventType, object: unknown) =>
    t.app.get(Transactions).run((uow) => t.app.get(EventsService).record(uow, tn, type, standIn(object)));
  const delivery = async (eventId: string, endpointId: string) =>
    (
      await pg.query(`SELECT * FROM visitor.webhook_delivery WHERE event_id = $1 AND endpoint_id = $2`, [
        eventId,
        endpointId,
      ])
    ).rows[0];

  it('delivers a signed event to each subscribed endpoint of its mode, verified by standardwebhooks', async () => {
    const tn = tenant();
    const all = await createEndpoint(t.app, t.config, tn, receiver.url('/ok/all'), ['*']);
    const exact = await createEndpoint(t.app, t.config, tn, receiver.url('/ok/exact'), ['visit.created']);
    await createEndpoint(t.app, t.config, tn, receiver.url('/ok/other-type'), ['visit.checked_in']);
    await createEndpoint(t.app, t.config, { ...tn, livemode: false }, receiver.url('/ok/test-mode'), ['*']);
    await createEndpoint(t.app, t.config, tn, receiver.url('/ok/disabled'), ['*'], 'disabled');
    await createEndpoint(t.app, t.config, tenant(), receiver.url('/ok/other-org'), ['*']);

    const event = await record(tn, 'visit.created', { id: 'visit_1', status: 'expected' });
    const [got] = await receiver.waitFor('/ok/all', 1);
    const [gotExact] = await receiver.waitFor('/ok/exact', 1);
    for (const [r, secret] of [
      [got, all.secret],
      [gotExact, exact.secret],
    ] as const) {
      expect(r.headers['webhook-id']).toBe(event.id);
      expect(r.headers['content-type']).toBe('application/json');
      const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      expect(payload).toEqual({
        id: event.id,
        type: 'visit.created',
        created_at: event.created_at,
        organisation_id: tn.organisationId,
        livemode: true,
        data: { object: { id: 'visit_1', status: 'expected' } },
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const p of ['/ok/other-type', '/ok/test-mode', '/ok/disabled', '/ok/other-org'])
      expect(receiver.on(p)).toHaveLength(0);
    const d = await delivery(event.id, all.id);
    expect(d).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 204,
      next_attempt_at: null,
    });
  });

  it('"*" covers every type except watchlist.matched, which goes only to endpoints that list it', async () => {
    const tn = tenant();
    await createEndpoint(t.app, t.config, tn, receiver.url('/ok/star'), ['*']);
    await createEndpoint(t.app, t.config, tn, receiver.url('/ok/watch'), ['watchlist.matched']);
    await record(tn, 'watchlist.matched', { id: 'wl_1' });
    await record(tn, 'some.future_type' as EventType, { id: 'x' }); // a type catalogued after the subscription
    await receiver.waitFor('/ok/watch', 1);
    const star = await receiver.waitFor('/ok/star', 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/ok/star').map((r) => JSON.parse(r.body).type)).toEqual(['some.future_type']);
    expect(star).toHaveLength(1);
  });

  it.each([
    ['/fail', 'receiver answered 500', 500],
    ['/redirect', 'redirect (302) not followed', 302],
    ['/slow', 'timeout: no answer within 500 ms', null],
  ])(
    'records %s as a failed attempt and schedules the retry 5 s later (±10 %%)',
    async (path, error, status) => {
      const tn = tenant();
      const ep = await createEndpoint(t.app, t.config, tn, receiver.url(path), ['*']);
      const okBefore = receiver.on('/ok').length;
      const event = await record(tn, 'visit.created', { id: 'v' });
      let d;
      for (let i = 0; i < 100 && !(d = await delivery(event.id, ep.id))?.last_attempt_at; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(d).toMatchObject({
        status: 'pending',
        attempt_count: 1,
        last_status_code: status,
        last_error: error,
      });
      expect(d.first_failure_at).toEqual(d.last_attempt_at); // the first failure starts the failure record
      const wait = new Date(d.next_attempt_at).getTime() - new Date(d.last_attempt_at).getTime();
      expect(wait).toBeGreaterThanOrEqual(4500 - 50);
      expect(wait).toBeLessThanOrEqual(5500 + 2100);
      const attempts = (
        await pg.query(`SELECT * FROM visitor.webhook_attempt WHERE delivery_id = $1`, [d.id])
      ).rows;
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ attempt_number: 1, status_code: status, error });
      if (path === '/fail') expect(attempts[0].response_excerpt).toBe('receiver exploded');
      expect(receiver.on('/ok').length).toBe(okBefore); // the redirect was not followed
    },
  );

  it('records an answer PostgreSQL text cannot hold, and another delivery of the same event', async () => {
    const tn = tenant();
    const nul = await createEndpoint(t.app, t.config, tn, receiver.url('/nul/a'), ['*']);
    const ok = await createEndpoint(t.app, t.config, tn, receiver.url('/ok/beside-nul'), ['*']);
    const event = await record(tn, 'visit.created', { id: 'v' });
    const [d, beside] = await until(async () => {
      const both = [await delivery(event.id, nul.id), await delivery(event.id, ok.id)];
      return both.every((x) => x?.last_attempt_at) && both;
    }, 10_000);
    expect(d).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 200,
      last_error: null,
    });
    expect(beside).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    const attempts = (await pg.query(`SELECT * FROM visitor.webhook_attempt WHERE delivery_id = $1`, [d.id]))
      .rows;
    // The NUL and the byte that is not UTF-8 are each kept as U+FFFD, as the delivery log shows them.
    expect(attempts).toMatchObject([
      { attempt_number: 1, status_code: 200, response_excerpt: 'ok\uFFFD\uFFFD!' },
    ]);
    expect(receiver.on('/nul/a')).toHaveLength(1);
    expect(receiver.on('/ok/beside-nul')).toHaveLength(1);
  });

  it('records a refused connection as a failure', async () => {
    const tn = tenant();
    const ep = await createEndpoint(t.app, t.config, tn, 'http://127.0.0.1:1/hook', ['*']);
    const event = await record(tn, 'visit.created', { id: 'v' });
    let d;
    for (let i = 0; i < 100 && !(d = await delivery(event.id, ep.id))?.last_attempt_at; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(d.last_error).toMatch(/^ECONNREFUSED/);
    expect(d.status).toBe('pending');
  });

  describe('with an injected clock (no worker in this app: the test drives every attempt)', () => {
    let now: Date;
    let c: TestApp;
    beforeAll(async () => {
      c = await bootTestApp({
        db: t.db,
        env: { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '500', RUN_WORKER: 'false' },
      });
    });
    afterAll(() => c.close());
    beforeEach(() => {
      now = new Date('2030-01-01T00:00:00Z');
      jest.spyOn(c.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    });
    afterEach(() => jest.restoreAllMocks());
    const record = (tn: { organisationId: string; livemode: boolean }, type: EventType, object: unknown) =>
      c.app.get(Transactions).run((uow) => c.app.get(EventsService).record(uow, tn, type, standIn(object)));

    it('a delivery deleted mid-attempt (sandbox reset) leaves no attempt, and costs the outcomes recorded with it nothing', async () => {
      const live = tenant();
      const sandbox = { ...live, livemode: false };
      const svc = c.app.get(DeliveryService);
      const deliveryOf = async (tn: typeof live, path: string) => {
        const ep = await createEndpoint(c.app, c.config, tn, receiver.url(path), ['*']);
        return delivery((await record(tn, 'visit.created', { id: 'v' })).id, ep.id);
      };
      const [x, gone, kept] = [
        await deliveryOf(live, '/ok/reset-x'),
        await deliveryOf(sandbox, '/ok/reset-gone'),
        await deliveryOf(live, '/ok/reset-kept'),
      ];
      const { ready } = await svc.claim({ ids: [x.id, gone.id, kept.id] });
      const byId = new Map(ready.map((d) => [d.delivery.id, d]));
      // x's outcome is held at its row's lock, so the next two end while its statement waits and go together.
      const lock = new Client({ connectionString: c.db.url });
      await lock.connect();
      await lock.query('BEGIN');
      await lock.query('SELECT id FROM visitor.webhook_delivery WHERE id = $1 FOR UPDATE', [x.id]);
      const sentX = svc.send(byId.get(x.id)!);
      const waiting = async () =>
        (
          await pg.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
          )
        ).rows[0].n > 0;
      await until(waiting);
      await c.app.get(Transactions).run((uow) => c.app.get(EventsRepository).clearSandbox(uow, sandbox));
      const posted: Promise<void>[] = [];
      const [sentGone, sentKept] = [gone, kept].map((d) => {
        let done!: () => void;
        posted.push(new Promise<void>((r) => (done = r)));
        return svc.send(byId.get(d.id)!, done).then(
          (r) => r,
          (e: Error) => `not recorded: ${e.message}`,
        );
      });
      await Promise.all(posted); // both outcomes now wait behind x's statement
      await lock.query('COMMIT');
      await lock.end();

      expect(await sentX).toBe('succeeded');
      expect(await sentKept).toBe('succeeded');
      // The gone delivery's POST was made; its outcome has nothing left to record (no row, no orphaned attempt).
      expect(await sentGone).toBe('succeeded');
      const left = await pg.query(
        `SELECT (SELECT count(*)::int FROM visitor.webhook_delivery WHERE id = $1) AS deliveries,
                (SELECT count(*)::int FROM visitor.webhook_attempt WHERE delivery_id = $1) AS attempts`,
        [gone.id],
      );
      expect(left.rows[0]).toEqual({ deliveries: 0, attempts: 0 });
      expect(await delivery(kept.event_id, kept.endpoint_id)).toMatchObject({
        status: 'succeeded',
        attempt_count: 1,
      });
      expect(receiver.on('/ok/reset-kept')).toHaveLength(1);
    });

    it("a deleted delivery's attempts go with it, by sandbox reset or by retention; others' stay", async () => {
      const live = tenant();
      const sandbox = { ...live, livemode: false };
      const events = c.app.get(EventsRepository);
      const attempted = async (tn: typeof live, path: string) => {
        const ep = await createEndpoint(c.app, c.config, tn, receiver.url(path), ['*']);
        const event = await record(tn, 'visit.created', { id: 'v' });
        const d = await delivery(event.id, ep.id);
        expect(await c.app.get(DeliveryService).attempt(d.id)).toBe('succeeded');
        return { deliveryId: d.id as string, eventId: event.id };
      };
      const [reset, aged, kept] = [
        await attempted(sandbox, '/ok/cascade-reset'),
        await attempted(live, '/ok/cascade-aged'),
        await attempted(live, '/ok/cascade-kept'),
      ];
      const attempts = async () =>
        Promise.all(
          [reset, aged, kept].map(
            async (x) =>
              (
                await pg.query(
                  `SELECT count(*)::int AS n FROM visitor.webhook_attempt WHERE delivery_id = $1`,
                  [x.deliveryId],
                )
              ).rows[0].n,
          ),
        );
      expect(await attempts()).toEqual([1, 1, 1]);
      await c.app.get(Transactions).run((uow) => events.clearSandbox(uow, sandbox));
      await c.app
        .get(Transactions)
        .run((uow) => events.backdate(uow.manager, live, aged.eventId, new Date('2000-01-01T00:00:00Z')));
      expect(await events.purgeBefore(new Date('2000-01-02T00:00:00Z'))).toBe(1);
      expect(await attempts()).toEqual([0, 0, 1]);
    });

    it('follows the whole schedule (8 attempts, same webhook-id and body, new timestamp and signature), then fails', async () => {
      const tn = tenant();
      const ep = await createEndpoint(c.app, c.config, tn, receiver.url('/fail/schedule'), ['*']);
      const event = await record(tn, 'visit.checked_in', { id: 'visit_9' });
      const svc = c.app.get(DeliveryService);
      const d0 = await delivery(event.id, ep.id);
      const seenAt: number[] = [];
      for (let attempt = 1; attempt <= 8; attempt++) {
        const before = await delivery(event.id, ep.id);
        now = new Date(before.next_attempt_at);
        seenAt.push(now.getTime());
        expect(await svc.attempt(d0.id)).toBe(attempt < 8 ? 'retrying' : 'failed');
        const after = await delivery(event.id, ep.id);
        expect(after.attempt_count).toBe(attempt);
      }
      const final = await delivery(event.id, ep.id);
      expect(final).toMatchObject({ status: 'failed', next_attempt_at: null, attempt_count: 8 });
      // first_failure_at stays at the first attempt; last_attempt_at moved on to the eighth
      expect(final.first_failure_at).toEqual(new Date(seenAt[0]));
      expect(final.last_attempt_at).toEqual(new Date(seenAt[7]));
      const gaps = seenAt.slice(1).map((x, i) => x - seenAt[i]);
      gaps.forEach((g, i) => {
        expect(g).toBeGreaterThanOrEqual(Math.floor(RETRY_WAITS_MS[i + 1] * 0.9));
        expect(g).toBeLessThanOrEqual(Math.ceil(RETRY_WAITS_MS[i + 1] * 1.1) + 1000);
      });
      const got = receiver.on('/fail/schedule');
      expect(got).toHaveLength(8);
      expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      expect(new Set(got.map((r) => r.headers['webhook-timestamp'])).size).toBe(8);
      expect(new Set(got.map((r) => r.headers['webhook-signature'])).size).toBe(8);
      // signed for the (injected) attempt time: the receiver library checks the signature, not our clock
      for (const r of got) {
        const fresh = { ...(r.headers as Record<string, string>) };
        const ts = Number(fresh['webhook-timestamp']);
        jest.useFakeTimers({
          now: ts * 1000,
          doNotFake: ['setTimeout', 'setInterval', 'setImmediate', 'nextTick', 'queueMicrotask'],
        });
        expect(new Webhook(ep.secret).verify(r.body, fresh)).toEqual(JSON.parse(r.body));
        jest.useRealTimers();
      }
    });

    it('disables an endpoint after 5 days of failures, and a success resets the clock', async () => {
      const svc = c.app.get(DeliveryService);
      const tn = tenant();
      const ep = await createEndpoint(c.app, c.config, tn, receiver.url('/fail/disable'), ['*']);
      const endpoint = async () =>
        (
          await pg.query(
            `SELECT status, disabled_reason, failing_since FROM visitor.webhook_endpoint WHERE id = $1`,
            [ep.id],
          )
        ).rows[0];
      const attemptAt = async (at: Date) => {
        now = at;
        const e = await record(tn, 'visit.created', { id: 'v' });
        const d = await delivery(e.id, ep.id);
        await svc.attempt(d.id);
      };
      const t0 = new Date('2030-02-01T00:00:00Z');
      await attemptAt(t0);
      expect(await endpoint()).toMatchObject({ status: 'enabled', failing_since: t0 });
      await attemptAt(new Date(t0.getTime() + 4 * 86_400_000));
      expect((await endpoint()).status).toBe('enabled');

      // success resets
      await pg.query(`UPDATE visitor.webhook_endpoint SET url = $2 WHERE id = $1`, [
        ep.id,
        receiver.url('/ok/disable'),
      ]);
      await attemptAt(new Date(t0.getTime() + 4.5 * 86_400_000));
      expect(await endpoint()).toMatchObject({ status: 'enabled', failing_since: null });
      await pg.query(`UPDATE visitor.webhook_endpoint SET url = $2 WHERE id = $1`, [
        ep.id,
        receiver.url('/fail/disable'),
      ]);
      await attemptAt(new Date(t0.getTime() + 6 * 86_400_000));
      expect((await endpoint()).status).toBe('enabled');

      await attemptAt(new Date(t0.getTime() + 11 * 86_400_000 + 60_000));
      expect(await endpoint()).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    });
  });
});
