import { Webhook } from 'standardwebhooks';
import { bootTestApp, TestApp } from '../../harness';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { WebhookEndpointsService } from '../../../src/visitor/webhooks/webhook-endpoints.service';
import { DeliveryService } from '../../../src/visitor/webhooks/delivery/delivery.service';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventsService } from '../../../src/visitor/events/events.service';
import { ApiError } from '../../../src/common/errors/api-error';
import { standIn } from '../../support/webhook-fixtures';

describe('webhook endpoints: rules, rotation, test sends', () => {
  let t: TestApp;
  let strict: TestApp;
  let receiver: WebhookReceiver;
  const tenant = { organisationId: 'org_endpoints', livemode: true };

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_SWEEP_MS: '200' },
    });
    strict = await bootTestApp({ db: t.db, env: { RUN_WORKER: 'false' } });
  });
  afterAll(async () => {
    await strict.close();
    await t.close();
    await receiver.stop();
  });

  const errorOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ApiError) return { code: e.code, errors: e.errors };
      throw e;
    }
    throw new Error('expected an ApiError');
  };

  it('refuses unsafe destinations at body.url when saved (production rules)', async () => {
    const svc = strict.app.get(WebhookEndpointsService);
    strict.app.get(DeliveryService).resolver = async (host) => [
      { address: host === 'public.example' ? '93.184.216.34' : '127.0.0.1', family: 4 },
    ];
    for (const url of [
      'http://public.example/h',
      'https://u:p@public.example/h',
      'https://10.0.0.1/h',
      'https://[::1]/h',
      'https://localtrap.example/h',
    ]) {
      expect(await errorOf(svc.create(tenant, { url, enabled_events: ['*'] }))).toMatchObject({
        code: 'validation_failed',
        errors: [{ location: 'body.url' }],
      });
    }
    const ok = await svc.create(tenant, {
      url: 'https://public.example/h',
      enabled_events: ['visit.created'],
    });
    expect(ok.secret).toMatch(/^whsec_/);
    expect(Object.keys(ok).sort()).toEqual([
      'created_at',
      'description',
      'disabled_reason',
      'enabled_events',
      'id',
      'secret',
      'status',
      'updated_at',
      'url',
    ]);
  });

  it('validates enabled_events item by item', async () => {
    const svc = t.app.get(WebhookEndpointsService);
    expect(
      await errorOf(
        svc.create(tenant, { url: receiver.url('/ok'), enabled_events: ['visit.created', 'visit.exploded'] }),
      ),
    ).toEqual({
      code: 'validation_failed',
      errors: [{ location: 'body.enabled_events.1', message: 'unknown event type "visit.exploded"' }],
    });
    expect(
      (
        await errorOf(
          svc.create(tenant, { url: receiver.url('/ok'), enabled_events: ['*', 'visit.created'] }),
        )
      ).errors[0].location,
    ).toBe('body.enabled_events');
    expect(
      (await errorOf(svc.create(tenant, { url: receiver.url('/ok'), enabled_events: [] }))).errors[0]
        .location,
    ).toBe('body.enabled_events');
  });

  it('rotating the secret signs with both secrets during the overlap', async () => {
    const svc = t.app.get(WebhookEndpointsService);
    const created = await svc.create(tenant, { url: receiver.url('/ok/rotate'), enabled_events: ['*'] });
    const rotated = await svc.rotateSecret(tenant, created.id);
    expect(rotated.secret).not.toBe(created.secret);
    await t.app
      .get(Transactions)
      .run((uow) => t.app.get(EventsService).record(uow, tenant, 'visit.created', standIn({ id: 'v1' })));
    const [r] = await receiver.waitFor('/ok/rotate', 1);
    expect((r.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    for (const secret of [created.secret, rotated.secret])
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toBeTruthy();
  });

  it('a test send reports what the receiver answered, signed with the endpoint secret', async () => {
    const svc = t.app.get(WebhookEndpointsService);
    const good = await svc.create(tenant, { url: receiver.url('/ok/test-send'), enabled_events: ['*'] });
    const result = await svc.test(tenant, good.id, 'visit.checked_in');
    expect(result).toMatchObject({
      endpoint_id: good.id,
      type: 'visit.checked_in',
      outcome: 'succeeded',
      status_code: 204,
      error: null,
    });
    expect(result.event_id).toMatch(/^evt_/);
    const [r] = await receiver.waitFor('/ok/test-send', 1);
    expect(new Webhook(good.secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({
      id: result.event_id,
      type: 'visit.checked_in',
    });

    const bad = await svc.create(tenant, { url: receiver.url('/fail'), enabled_events: ['*'] });
    expect(await svc.test(tenant, bad.id, 'visit.created')).toMatchObject({
      outcome: 'failed',
      status_code: 500,
      error: 'receiver answered 500',
    });
    const refused = await svc.create(tenant, { url: 'http://127.0.0.1:1/x', enabled_events: ['*'] });
    expect(await svc.test(tenant, refused.id, 'visit.created')).toMatchObject({
      outcome: 'failed',
      status_code: 0,
      error: expect.stringMatching(/^ECONNREFUSED/),
    });
    expect(await errorOf(svc.test(tenant, good.id, 'nope.never'))).toMatchObject({
      code: 'validation_failed',
      errors: [{ location: 'body.type' }],
    });
  });

  it('another organisation or mode cannot see the endpoint; re-enabling clears the failing state', async () => {
    const svc = t.app.get(WebhookEndpointsService);
    const ep = await svc.create(tenant, { url: receiver.url('/ok'), enabled_events: ['*'] });
    expect(await errorOf(svc.get({ ...tenant, livemode: false }, ep.id))).toMatchObject({
      code: 'not_found',
    });
    expect(await errorOf(svc.get({ organisationId: 'org_other', livemode: true }, ep.id))).toMatchObject({
      code: 'not_found',
    });
    const disabled = await svc.update(tenant, ep.id, { status: 'disabled' });
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'disabled_by_user' });
    expect(await svc.update(tenant, ep.id, { status: 'enabled' })).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
    });
    await svc.remove(tenant, ep.id);
    expect(await errorOf(svc.get(tenant, ep.id))).toMatchObject({ code: 'not_found' });
  });
});
