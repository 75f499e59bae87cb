import type { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../../harness';
import { until } from '../../support/until';
import { call, createOrg } from '../../support/platform-fixtures';
import type { WebhookReceiver } from '../../support/webhook-receiver';
import { startWebhookApp, WebhookApp } from '../../support/webhook-app';
import { Transactions } from '../../../src/database/unit-of-work';
import { OrganisationsService } from '../../../src/visitor/organisations/organisations.service';
import { EventsService } from '../../../src/visitor/events/events.service';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { standIn } from '../../support/webhook-fixtures';
import type { EventType } from '../../../src/visitor/events/event-types';

const OPERATOR = { type: 'operator' as const, id: 'test' };

/**
 * "An organisation on a plan without webhooks keeps its endpoints … delivery resumes when the plan returns":
 * live deliveries are held (recorded, not attempted, not counted toward auto-disable) while the plan lacks
 * webhooks, and sent when it returns; test mode is never held.
 */
describe('webhook delivery while the plan lacks webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let pg: Client;

  let w: WebhookApp;

  beforeAll(async () => {
    w = await startWebhookApp();
    ({ t, receiver, pg } = w);
  });
  afterAll(() => w.close());

  const setPlan = (orgId: string, plan: string) =>
    t.app.get(OrganisationsService).update(orgId, { plan }, OPERATOR);
  const record = (organisationId: string, livemode: boolean, type: EventType, object: unknown) =>
    t.app
      .get(Transactions)
      .run((uow) =>
        t.app.get(EventsService).record(uow, { organisationId, livemode }, type, standIn(object)),
      );
  const deliveryOf = async (eventId: string, endpointId: string) =>
    (
      await pg.query(
        `SELECT d.*, (SELECT count(*)::int FROM visitor.webhook_attempt a WHERE a.delivery_id = d.id) AS attempts
           FROM visitor.webhook_delivery d WHERE event_id = $1 AND endpoint_id = $2`,
        [eventId, endpointId],
      )
    ).rows[0];
  const endpointRow = async (id: string) =>
    (
      await pg.query(
        `SELECT status, disabled_reason, failing_since FROM visitor.webhook_endpoint WHERE id = $1`,
        [id],
      )
    ).rows[0];

  it('holds live deliveries while lapsed (nothing sent, nothing counted), sends them when the plan returns', async () => {
    const org = await createOrg(t.app, 'growth');
    const liveKey = await org.key({ mode: 'live' });
    const testKey = await org.key({ mode: 'test' });
    const create = async (key: string, path: string) => {
      const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
        key,
        body: { url: receiver.url(path), enabled_events: ['*'] },
      });
      expect(res.statusCode).toBe(201);
      return res.json() as { id: string; secret: string };
    };
    const ok = await create(liveKey, '/ok/lapse-live');
    const failing = await create(liveKey, '/fail/lapse-live');
    const testMode = await create(testKey, '/ok/lapse-test');
    // The failing endpoint has failed for 4 days already: one more day of failures would disable it.
    const fourDaysAgo = new Date(Date.now() - 4 * 86_400_000);
    await pg.query(`UPDATE visitor.webhook_endpoint SET failing_since = $2 WHERE id = $1`, [
      failing.id,
      fourDaysAgo,
    ]);

    await setPlan(org.id, 'starter');
    const live = await record(org.id, true, 'visit.created', { id: 'visit_lapsed' });
    const test = await record(org.id, false, 'visit.created', { id: 'visit_lapsed_test' });

    // Test mode has webhooks on every plan: its delivery goes out at once.
    const [gotTest] = await receiver.waitFor('/ok/lapse-test', 1);
    expect(
      new Webhook(testMode.secret).verify(gotTest.body, gotTest.headers as Record<string, string>),
    ).toMatchObject({ id: test.id });
    // Live deliveries exist, held: not attempted, no attempt stored, the failure clock untouched.
    for (const ep of [ok, failing]) {
      const held = await until(async () => {
        const d = await deliveryOf(live.id, ep.id);
        return d?.held_since && d;
      });
      expect(held).toMatchObject({ status: 'pending', attempt_count: 0, attempts: 0, last_attempt_at: null });
    }
    // The console delivery log says why they wait.
    const email = `admin@${org.id.slice(4).toLowerCase()}.test`;
    const password = 'correct horse battery staple';
    await t.app
      .get(AccountsService)
      .create(org.id, { email, name: 'Admin', role: 'admin', password }, OPERATOR);
    const session = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password },
    });
    const log = await t.app.inject({
      method: 'GET',
      url: `/console/webhook-endpoints/${ok.id}/deliveries`,
      headers: { cookie: String(session.headers['set-cookie'] ?? '').split(';')[0] },
    });
    expect(log.statusCode).toBe(200);
    expect(log.json().data[0]).toMatchObject({
      event_id: live.id,
      status: 'pending',
      held_since: expect.any(String),
    });
    // Several sweeps later, still nothing was sent to the live receivers.
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.on('/ok/lapse-live')).toHaveLength(0);
    expect(receiver.on('/fail/lapse-live')).toHaveLength(0);
    expect((await deliveryOf(live.id, ok.id)).attempt_count).toBe(0);
    expect(await endpointRow(failing.id)).toMatchObject({ status: 'enabled', failing_since: fourDaysAgo });
    // The endpoints are still there and enabled, readable over HTTP.
    const listed = await call(t.app, 'GET', '/v1/webhook-endpoints', { key: liveKey });
    expect(listed.json().data.map((e: { status: string }) => e.status)).toEqual(['enabled', 'enabled']);

    // While the plan is lapsed for 2 more days, the failure clock would pass 5 days; the lapse does not count.
    await pg.query(`UPDATE visitor.webhook_endpoint SET failing_since = $2 WHERE id = $1`, [
      failing.id,
      new Date(Date.now() - 6 * 86_400_000),
    ]);

    await setPlan(org.id, 'growth');
    const [got] = await receiver.waitFor('/ok/lapse-live', 1);
    expect(got.headers['webhook-id']).toBe(live.id);
    expect(new Webhook(ok.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(
      JSON.parse((await pg.query(`SELECT body FROM visitor.event WHERE id = $1`, [live.id])).rows[0].body),
    );
    const sent = await until(async () => {
      const d = await deliveryOf(live.id, ok.id);
      return d.status === 'succeeded' && d;
    });
    expect(sent).toMatchObject({ attempt_count: 1, attempts: 1, held_since: null });
    // The failing endpoint gets its attempt too; it fails, but the held days did not count toward auto-disable.
    await receiver.waitFor('/fail/lapse-live', 1);
    const failed = await until(async () => {
      const d = await deliveryOf(live.id, failing.id);
      return d.attempt_count === 1 && d;
    });
    expect(failed).toMatchObject({ status: 'pending', last_status_code: 500, held_since: null });
    const ep = await endpointRow(failing.id);
    expect(ep.status).toBe('enabled');
    expect(Date.now() - new Date(ep.failing_since).getTime()).toBeLessThan(60_000);
  });

  it('a delivery waiting for its retry when the plan lapses is held at its due time, then retried', async () => {
    const org = await createOrg(t.app, 'pro');
    const liveKey = await org.key({ mode: 'live' });
    const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key: liveKey,
      body: { url: receiver.url('/fail/lapse-retry'), enabled_events: ['visit.checked_in'] },
    });
    const ep = res.json() as { id: string };
    const ev = await record(org.id, true, 'visit.checked_in', { id: 'visit_retry' });
    await until(async () => (await deliveryOf(ev.id, ep.id))?.attempt_count === 1);
    await setPlan(org.id, 'free');
    // the 5-second retry (its delayed job) falls due while the plan is lapsed
    const held = await until(async () => {
      const d = await deliveryOf(ev.id, ep.id);
      return d.held_since && d;
    }, 10_000);
    expect(held).toMatchObject({ status: 'pending', attempt_count: 1, attempts: 1 });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.on('/fail/lapse-retry')).toHaveLength(1);

    await setPlan(org.id, 'enterprise');
    await receiver.waitFor('/fail/lapse-retry', 2);
    const retried = await until(async () => {
      const d = await deliveryOf(ev.id, ep.id);
      return d.attempt_count === 2 && d;
    });
    expect(retried).toMatchObject({ status: 'pending', attempts: 2, held_since: null });
  });
});
