import type { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../../harness';
import { until } from '../../support/until';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import type { WebhookReceiver } from '../../support/webhook-receiver';
import { startWebhookApp, WebhookApp } from '../../support/webhook-app';
import { Contract } from '../../support/openapi-contract';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { Transactions } from '../../../src/database/unit-of-work';
import { OrganisationsService } from '../../../src/visitor/organisations/organisations.service';
import { EventsService } from '../../../src/visitor/events/events.service';
import { EVENT_TYPES, EventType } from '../../../src/visitor/events/event-types';
import { pastCreation, standIn } from '../../support/webhook-fixtures';
import { EventSamples } from '../../../src/visitor/events/event-samples';

const OPERATOR = { type: 'operator' as const, id: 'test' };
const PASSWORD = 'correct horse battery staple';

/** The webhook and event endpoints of /v1 and the console delivery log, through HTTP with real keys. */
describe('webhooks over HTTP: endpoints, events, redelivery, plan lapse, console', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let pg: Client;
  let org: TestOrg;
  let testKey: string;
  let liveKey: string;
  let contract: Contract;

  let w: WebhookApp;

  beforeAll(async () => {
    w = await startWebhookApp();
    ({ t, receiver, pg } = w);
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    org = await createOrg(t.app, 'growth');
    testKey = await org.key({ mode: 'test' });
    liveKey = await org.key({ mode: 'live' });
    for (const role of ['owner', 'admin', 'member'])
      await t.app
        .get(AccountsService)
        .create(org.id, { email: mail(role), name: role, role, password: PASSWORD }, OPERATOR);
  });
  afterAll(() => w.close());

  const mail = (role: string) => `${role}@${org.id.slice(4).toLowerCase()}.test`;
  const recordIn = (organisationId: string, livemode: boolean, type: EventType, object: unknown) =>
    t.app
      .get(Transactions)
      .run((uow) =>
        t.app.get(EventsService).record(uow, { organisationId, livemode }, type, standIn(object)),
      );
  const record = (livemode: boolean, type: EventType, object: unknown) =>
    recordIn(org.id, livemode, type, object);
  /** Creates an endpoint over HTTP and returns the created object (with its secret). */
  const endpoint = async (key: string, path: string, enabledEvents: string[]) =>
    (
      await call(t.app, 'POST', '/v1/webhook-endpoints', {
        key,
        body: { url: receiver.url(path), enabled_events: enabledEvents },
      })
    ).json();

  it('creates (201, secret once), lists, gets, changes and deletes an endpoint', async () => {
    const created = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key: liveKey,
      body: { url: receiver.url('/ok/crud'), description: 'CRM', enabled_events: ['visit.created'] },
    });
    expect(created.statusCode).toBe(201);
    contract.expectValid(created, 'POST', '/v1/webhook-endpoints');
    const ep = created.json();
    expect(ep).toMatchObject({
      url: receiver.url('/ok/crud'),
      description: 'CRM',
      enabled_events: ['visit.created'],
      status: 'enabled',
      disabled_reason: null,
    });
    expect(ep.id).toMatch(/^whep_/);
    expect(ep.secret).toMatch(/^whsec_/);
    // the secret is encrypted at rest
    const stored = await pg.query(`SELECT secret_sealed FROM visitor.webhook_endpoint WHERE id = $1`, [
      ep.id,
    ]);
    expect(stored.rows[0].secret_sealed).not.toContain(ep.secret.slice(6));

    const got = await call(t.app, 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: liveKey });
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty('secret');
    contract.expectValid(got, 'GET', '/v1/webhook-endpoints/{whep_id}');
    const list = await call(t.app, 'GET', '/v1/webhook-endpoints?limit=1', { key: liveKey });
    expect(list.json()).toMatchObject({ has_more: false, data: [{ id: ep.id }] });
    contract.expectValid(list, 'GET', '/v1/webhook-endpoints');
    // another mode does not see it
    expect((await call(t.app, 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: testKey })).statusCode).toBe(
      404,
    );

    const changed = await call(t.app, 'PATCH', `/v1/webhook-endpoints/${ep.id}`, {
      key: liveKey,
      body: { enabled_events: ['*'], description: 'All' },
    });
    expect(changed.json()).toMatchObject({ enabled_events: ['*'], description: 'All' });
    const bad = await call(t.app, 'PATCH', `/v1/webhook-endpoints/${ep.id}`, {
      key: liveKey,
      body: { url: 'http://example.com/h', enabled_events: ['visit.nope'] },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { location: string }) => e.location)).toContain('body.enabled_events.0');

    const rotated = await call(t.app, 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, {
      key: liveKey,
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(ep.secret);

    const del = await call(t.app, 'DELETE', `/v1/webhook-endpoints/${ep.id}`, { key: liveKey });
    expect(del.statusCode).toBe(204);
    expect((await call(t.app, 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: liveKey })).statusCode).toBe(
      404,
    );
  });

  it('refuses unsafe URLs at body.url and a missing scope with scope_missing', async () => {
    for (const url of [
      'ftp://127.0.0.1/h',
      'https://user:pw@127.0.0.1/h',
      'https://10.0.0.1/h',
      'https://[fd00::1]/h',
    ]) {
      // loopback is allowed by this test app's flag; other schemes, user info and private addresses are not
      const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
        key: testKey,
        body: { url, enabled_events: ['*'] },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].location).toBe('body.url');
    }
    const narrow = await org.key({ mode: 'test', scopes: ['events:read'] });
    const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key: narrow,
      body: { url: receiver.url('/ok/x'), enabled_events: ['*'] },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'scope_missing' });
    expect(res.json().detail).toContain('webhooks:manage');
  });

  it('test send returns the Webhook test result, signed (checked with standardwebhooks)', async () => {
    const ep = await endpoint(testKey, '/ok/testsend', ['*']);
    const res = await call(t.app, 'POST', `/v1/webhook-endpoints/${ep.id}/test`, {
      key: testKey,
      body: { type: 'visit.checked_in' },
    });
    expect(res.statusCode).toBe(200);
    contract.expectValid(res, 'POST', '/v1/webhook-endpoints/{whep_id}/test');
    const r = res.json();
    expect(Object.keys(r).sort()).toEqual(
      [
        'attempted_at',
        'duration_ms',
        'endpoint_id',
        'error',
        'event_id',
        'outcome',
        'status_code',
        'type',
      ].sort(),
    );
    expect(r).toMatchObject({
      endpoint_id: ep.id,
      type: 'visit.checked_in',
      outcome: 'succeeded',
      status_code: 204,
    });
    const got = receiver.on('/ok/testsend')[0];
    expect(new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      id: r.event_id,
      type: 'visit.checked_in',
    });
    const unknown = await call(t.app, 'POST', `/v1/webhook-endpoints/${ep.id}/test`, {
      key: testKey,
      body: { type: 'nope' },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].location).toBe('body.type');
  });

  it('a test send carries a realistic sample of every type, in the shape its own endpoint returns', async () => {
    const own = await createOrg(t.app, 'growth'); // a rate-limit allowance of its own for 30 sends
    const key = await own.key({ mode: 'test' });
    const ep = await endpoint(key, '/ok/samples', ['*']);
    const shapeOf = (object: unknown, path: string) =>
      contract.expectValid(
        {
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(object),
          json: () => object,
        },
        'GET',
        path,
      );
    // Each resource's domain registers its sample (EventSamples); only a test send of webhook_endpoint.disabled
    // carries the endpoint it is sent to. A new resource needs a registered sample, not an edit here.
    const samples = t.app.get(EventSamples);
    const resources = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0]))];
    expect(resources.filter((r) => r !== 'webhook_endpoint' && !samples.resources().includes(r))).toEqual([]);
    const registered = (type: EventType) =>
      samples.sample(type, { organisationId: own.id, livemode: false }, new Date()) as Record<
        string,
        unknown
      >;
    /** The id prefix of the type's registered sample: `visitor_`, `booking_`, `wlm_` (a watchlist match), …. */
    const prefixOf = (type: EventType) => String(registered(type).id).replace(/_[0-9A-Za-z]+$/, '_');
    for (const type of EVENT_TYPES) {
      const res = await call(t.app, 'POST', `/v1/webhook-endpoints/${ep.id}/test`, { key, body: { type } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ type, outcome: 'succeeded' });
      const got = receiver.on('/ok/samples').find((r) => r.headers['webhook-id'] === res.json().event_id)!;
      const event = new Webhook(ep.secret).verify(got.body, got.headers as Record<string, string>) as {
        type: string;
        livemode: boolean;
        organisation_id: string;
        data: { object: Record<string, unknown> };
      };
      expect(event).toMatchObject({ type, livemode: false, organisation_id: own.id });
      const object = event.data.object;
      expect(object).not.toHaveProperty('sample');
      const resource = type.split('.')[0];
      if (resource === 'visit' || resource === 'pass') {
        shapeOf(object, `/v1/visits/${String(object.id)}`);
        expect(object.id).toMatch(/^visit_/);
      } else if (resource === 'person') {
        shapeOf(object, `/v1/people/${String(object.id)}`);
        expect(object.active).toBe(type !== 'person.deactivated');
      } else if (resource === 'delivery') {
        shapeOf(object, `/v1/deliveries/${String(object.id)}`);
        expect(object.status).toBe(type.split('.')[1]);
      } else if (resource === 'webhook_endpoint') {
        shapeOf(object, `/v1/webhook-endpoints/${ep.id}`);
        expect(object).toMatchObject({ id: ep.id, status: 'disabled', disabled_reason: 'failing' });
      } else {
        expect(String(object.id).startsWith(prefixOf(type))).toBe(true);
        expect(Object.keys(object).sort()).toEqual(Object.keys(registered(type)).sort());
      }
      const expectedStatus: Record<string, unknown> = {
        'visit.created': 'expected',
        'visit.approval_requested': 'awaiting_approval',
        'visit.approved': 'checked_in',
        'visit.denied': 'denied',
        'visit.checked_in': 'checked_in',
        'visit.checked_out': 'checked_out',
        'visit.cancelled': 'cancelled',
        'visit.no_show': 'no_show',
        'pass.sent': 'expected',
        'booking.confirmed': 'confirmed',
        'booking.declined': 'declined',
      };
      if (type in expectedStatus) expect(object.status).toBe(expectedStatus[type]);
    }
    const denied = receiver
      .on('/ok/samples')
      .map((r) => JSON.parse(r.body))
      .find((e) => e.type === 'visit.denied');
    expect(denied.data.object.decision).toMatchObject({ outcome: 'denied' });
  });

  it('lists and reads events with filters, newest first, paged by cursor, mode-separated', async () => {
    const a = await record(false, 'person.deactivated', { id: 'person_a' });
    await pastCreation(a);
    const b = await record(false, 'person.reactivated', { id: 'person_a' });
    await pastCreation(b);
    const c = await record(false, 'person.deactivated', { id: 'person_b' });
    const live = await record(true, 'person.deactivated', { id: 'person_live' });
    const page1 = (
      await call(t.app, 'GET', '/v1/events?type=person.deactivated&limit=1', { key: testKey })
    ).json();
    expect(page1.data.map((e: { id: string }) => e.id)).toEqual([c.id]);
    expect(page1.has_more).toBe(true);
    const page2 = (
      await call(t.app, 'GET', `/v1/events?type=person.deactivated&limit=1&cursor=${page1.next_cursor}`, {
        key: testKey,
      })
    ).json();
    expect(page2.data.map((e: { id: string }) => e.id)).toEqual([a.id]);
    expect(page2.has_more).toBe(false);
    const one = await call(t.app, 'GET', `/v1/events/${b.id}`, { key: testKey });
    expect(one.json()).toEqual(b);
    contract.expectValid(one, 'GET', '/v1/events/{evt_id}');
    expect((await call(t.app, 'GET', `/v1/events/${live.id}`, { key: testKey })).statusCode).toBe(404);
    const after = (
      await call(t.app, 'GET', `/v1/events?created_after=${encodeURIComponent(b.created_at)}`, {
        key: testKey,
      })
    ).json();
    expect(after.data.map((e: { id: string }) => e.id)).not.toContain(a.id);
    const bad = await call(t.app, 'GET', '/v1/events?created_after=yesterday&type=visit.nope', {
      key: testKey,
    });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .errors.map((e: { location: string }) => e.location)
        .sort(),
    ).toEqual(['query.created_after', 'query.type']);
  });

  it('created_before is exclusive, combines with created_after, and must come after it (query.created_before)', async () => {
    const own = await createOrg(t.app, 'growth');
    const key = await own.key({ mode: 'test' });
    // Each event in its own millisecond, so the bounds fall strictly between them.
    const rec = async (id: string) => {
      await new Promise((r) => setTimeout(r, 3));
      return recordIn(own.id, false, 'person.updated', { id });
    };
    const a = await rec('person_a');
    const b = await rec('person_b');
    const c = await rec('person_c');
    const ids = async (query: string) => {
      const res = await call(t.app, 'GET', `/v1/events?${query}`, { key });
      expect(res.statusCode).toBe(200);
      return res.json().data.map((e: { id: string }) => e.id);
    };
    const q = (k: string, e: { created_at: string }) => `${k}=${encodeURIComponent(e.created_at)}`;
    expect(await ids(q('created_before', b))).toEqual([a.id]);
    expect(await ids(q('created_before', c))).toEqual([b.id, a.id]);
    expect(await ids(`${q('created_after', a)}&${q('created_before', c)}`)).toEqual([b.id]);
    for (const query of [
      `${q('created_after', c)}&${q('created_before', a)}`,
      `${q('created_after', b)}&${q('created_before', b)}`,
    ]) {
      const bad = await call(t.app, 'GET', `/v1/events?${query}`, { key });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors).toEqual([
        { location: 'query.created_before', message: 'must be after created_after' },
      ]);
    }
    const malformed = await call(t.app, 'GET', '/v1/events?created_before=tomorrow', { key });
    expect(malformed.json().errors[0].location).toBe('query.created_before');
  });

  it("reading events needs events:read (webhooks:manage is not enough), with the read scope of the event's object", async () => {
    const own = await createOrg(t.app, 'growth');
    const ev = await recordIn(own.id, false, 'person.created', { id: 'p' });
    const manage = await own.key({ mode: 'test', scopes: ['webhooks:manage'] });
    // person.* needs people:read as well (every type: test/visitor/webhooks/event-scopes.e2e-spec.ts)
    const read = await own.key({ mode: 'test', scopes: ['events:read', 'people:read'] });
    for (const url of ['/v1/events', `/v1/events/${ev.id}`]) {
      const refused = await call(t.app, 'GET', url, { key: manage });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'scope_missing' });
      expect(refused.json().detail).toContain('events:read');
      expect((await call(t.app, 'GET', url, { key: read })).statusCode).toBe(200);
    }
    // redelivery manages webhooks: events:read alone may not
    const redeliver = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, { key: read, body: {} });
    expect(redeliver.json()).toMatchObject({ code: 'scope_missing' });
  });

  it('deleting an endpoint ends its pending deliveries as failed; redelivery to a disabled endpoint is invalid_state', async () => {
    const own = await createOrg(t.app, 'growth');
    const key = await own.key({ mode: 'test' });
    const mk = (path: string) => endpoint(key, path, ['visit.created']);
    const doomed = await mk('/fail/deleted');
    const ev = await recordIn(own.id, false, 'visit.created', { id: 'v' });
    const dlv = async (endpointId: string) =>
      (
        await pg.query(`SELECT * FROM visitor.webhook_delivery WHERE event_id = $1 AND endpoint_id = $2`, [
          ev.id,
          endpointId,
        ])
      ).rows;
    // the first attempt failed; the retry is scheduled
    const [pending] = await until(async () => {
      const rows = await dlv(doomed.id);
      return rows[0]?.attempt_count === 1 && rows;
    });
    expect(pending).toMatchObject({ status: 'pending', last_status_code: 500 });
    expect(pending.next_attempt_at).not.toBeNull();
    expect((await call(t.app, 'DELETE', `/v1/webhook-endpoints/${doomed.id}`, { key })).statusCode).toBe(204);
    expect((await dlv(doomed.id))[0]).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
      last_error: 'endpoint deleted',
      attempt_count: 1,
    });

    const off = await mk('/ok/disabled-redeliver');
    await call(t.app, 'PATCH', `/v1/webhook-endpoints/${off.id}`, { key, body: { status: 'disabled' } });
    const before = (await dlv(off.id)).length;
    const refused = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, {
      key,
      body: { endpoint_id: off.id },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'invalid_state' });
    expect(await dlv(off.id)).toHaveLength(before);
    // a redelivery to every subscriber skips the disabled and the deleted endpoint: nothing to send
    const all = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, { key, body: {} });
    expect(all.statusCode).toBe(202);
    expect(all.json().deliveries).toEqual([]);
  });

  it('redelivers a stored event with the same webhook-id and body, to all subscribers or one endpoint', async () => {
    const mk = (path: string) => endpoint(testKey, path, ['person.created']);
    const one = await mk('/ok/redeliver-1');
    const two = await mk('/ok/redeliver-2');
    const ev = await record(false, 'person.created', { id: 'person_r' });
    await until(async () => receiver.on('/ok/redeliver-2').length === 1);
    const res = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, { key: testKey, body: {} });
    expect(res.statusCode).toBe(202);
    contract.expectValid(res, 'POST', '/v1/events/{evt_id}/redeliver');
    expect(
      res
        .json()
        .deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)
        .sort(),
    ).toEqual(expect.arrayContaining([one.id, two.id]));
    await until(async () => receiver.on('/ok/redeliver-1').length === 2);
    const only = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, {
      key: testKey,
      body: { endpoint_id: two.id },
    });
    expect(only.json().deliveries).toHaveLength(1);
    const got = await until(
      async () => receiver.on('/ok/redeliver-2').length === 3 && receiver.on('/ok/redeliver-2'),
    );
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([ev.id]));
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    for (const r of got)
      expect(new Webhook(two.secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({
        id: ev.id,
      });
    const wrong = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, {
      key: testKey,
      body: { endpoint_id: 'whep_nope' },
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].location).toBe('body.endpoint_id');
  });

  it('a plan without webhooks keeps the endpoints: read, disable, delete work; change, enable, create do not', async () => {
    const lapsing = await createOrg(t.app, 'growth');
    const key = await lapsing.key({ mode: 'live' });
    const ep = await endpoint(key, '/ok/lapse', ['*']);
    await t.app.get(OrganisationsService).update(lapsing.id, { plan: 'starter' }, OPERATOR);
    const plan = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
      const res = await call(t.app, method, url, { key, body });
      return { status: res.statusCode, code: res.statusCode >= 400 ? res.json().code : undefined };
    };
    expect(await plan('GET', '/v1/webhook-endpoints')).toEqual({ status: 200, code: undefined });
    expect(await plan('PATCH', `/v1/webhook-endpoints/${ep.id}`, { description: 'x' })).toMatchObject({
      code: 'plan_required',
    });
    expect(
      await plan('POST', '/v1/webhook-endpoints', { url: receiver.url('/ok/l2'), enabled_events: ['*'] }),
    ).toMatchObject({ code: 'plan_required' });
    expect(await plan('GET', '/v1/events')).toMatchObject({ code: 'plan_required' });
    expect(await plan('PATCH', `/v1/webhook-endpoints/${ep.id}`, { status: 'disabled' })).toEqual({
      status: 200,
      code: undefined,
    });
    expect(await plan('PATCH', `/v1/webhook-endpoints/${ep.id}`, { status: 'enabled' })).toMatchObject({
      code: 'plan_required',
    });
    // the plan returns: the endpoint can be enabled again
    await t.app.get(OrganisationsService).update(lapsing.id, { plan: 'growth' }, OPERATOR);
    expect(await plan('PATCH', `/v1/webhook-endpoints/${ep.id}`, { status: 'enabled' })).toEqual({
      status: 200,
      code: undefined,
    });
    await t.app.get(OrganisationsService).update(lapsing.id, { plan: 'free' }, OPERATOR);
    expect(await plan('DELETE', `/v1/webhook-endpoints/${ep.id}`)).toEqual({ status: 204, code: undefined });
  });

  describe('console delivery log and the auto-disable e-mail', () => {
    const signIn = async (email: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/console/session',
        payload: { email, password: PASSWORD },
      });
      if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.body}`);
      return String(res.headers['set-cookie'] ?? '').split(';')[0];
    };

    it('admins see deliveries and attempts and retry one; members may not; support finds them by event id', async () => {
      const ep = await endpoint(testKey, '/fail/console', ['visit.cancelled']);
      const ev = await record(false, 'visit.cancelled', { id: 'visit_c' });
      await until(async () => receiver.on('/fail/console').length >= 1);
      const admin = await signIn(mail('admin'));
      const list = await until(async () => {
        const r = await t.app.inject({
          method: 'GET',
          url: `/console/webhook-endpoints/${ep.id}/deliveries`,
          headers: { cookie: admin },
        });
        const body = r.json();
        if (r.statusCode !== 200) throw new Error(r.body);
        return body.data?.[0]?.attempt_count >= 1 && body;
      });
      const dlv = list.data[0];
      expect(dlv).toMatchObject({
        event_id: ev.id,
        endpoint_id: ep.id,
        livemode: false,
        last_status_code: 500,
      });
      const detail = (
        await t.app.inject({
          method: 'GET',
          url: `/console/webhook-deliveries/${dlv.id}`,
          headers: { cookie: admin },
        })
      ).json();
      expect(detail.attempts[0]).toMatchObject({
        attempt_number: 1,
        status_code: 500,
        response_excerpt: 'receiver exploded',
      });
      const before = receiver.on('/fail/console').length;
      const retried = await t.app.inject({
        method: 'POST',
        url: `/console/webhook-deliveries/${dlv.id}/retry`,
        headers: { cookie: admin },
      });
      expect(retried.statusCode).toBe(200);
      await until(async () => receiver.on('/fail/console').length > before);

      const member = await signIn(mail('member'));
      const refused = await t.app.inject({
        method: 'GET',
        url: `/console/webhook-deliveries/${dlv.id}`,
        headers: { cookie: member },
      });
      expect(refused.statusCode).toBe(403);

      const support = await t.app.inject({
        method: 'GET',
        url: `/console/support/deliveries?event_id=${ev.id}`,
        headers: { authorization: `Bearer ${t.config.secrets.operatorToken}` },
      });
      expect(support.statusCode).toBe(200);
      const found = support.json().data.find((d: { id: string }) => d.id === dlv.id);
      expect(found).toMatchObject({ event_id: ev.id, endpoint_id: ep.id });
      expect(found.attempts.length).toBeGreaterThanOrEqual(2);
    });

    it('a console retry is conflict while a worker holds the delivery, invalid_state once the endpoint is disabled', async () => {
      const ep = await endpoint(testKey, '/fail/console-retry', ['visit.denied']);
      const ev = await record(false, 'visit.denied', { id: 'visit_d' });
      const dlv = await until(async () => {
        const r = await pg.query(
          `SELECT * FROM visitor.webhook_delivery WHERE event_id = $1 AND endpoint_id = $2`,
          [ev.id, ep.id],
        );
        return r.rows[0]?.attempt_count === 1 && r.rows[0];
      });
      const admin = await signIn(mail('admin'));
      const retry = () =>
        t.app.inject({
          method: 'POST',
          url: `/console/webhook-deliveries/${dlv.id}/retry`,
          headers: { cookie: admin },
        });
      // a worker claims the delivery (its claim runs for another minute)
      await pg.query(
        `UPDATE visitor.webhook_delivery SET locked_until = now() + interval '1 minute', next_attempt_at = now() + interval '1 hour' WHERE id = $1`,
        [dlv.id],
      );
      const busy = await retry();
      expect(busy.statusCode).toBe(409);
      expect(busy.json()).toMatchObject({ code: 'conflict' });
      await pg.query(`UPDATE visitor.webhook_delivery SET locked_until = NULL WHERE id = $1`, [dlv.id]);
      await call(t.app, 'PATCH', `/v1/webhook-endpoints/${ep.id}`, {
        key: testKey,
        body: { status: 'disabled' },
      });
      const disabled = await retry();
      expect(disabled.statusCode).toBe(409);
      expect(disabled.json()).toMatchObject({ code: 'invalid_state' });
      // neither changed the delivery
      const after = (await pg.query(`SELECT * FROM visitor.webhook_delivery WHERE id = $1`, [dlv.id]))
        .rows[0];
      expect(after).toMatchObject({ status: 'pending', attempt_count: 1 });
      expect(after.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    });

    it('disabling after 5 days of failures e-mails Owners and Admins (test outbox) and records an event', async () => {
      const ep = await endpoint(testKey, '/fail/autodisable', ['visit.no_show']);
      await pg.query(
        `UPDATE visitor.webhook_endpoint SET failing_since = now() - interval '6 days' WHERE id = $1`,
        [ep.id],
      );
      await record(false, 'visit.no_show', { id: 'visit_n' });
      const mails = await until(async () => {
        const r = await pg.query(
          `SELECT recipient, subject, provider FROM visitor.message WHERE organisation_id = $1 AND related_id = $2 ORDER BY recipient`,
          [org.id, ep.id],
        );
        return r.rows.length === 2 && r.rows;
      });
      expect(mails).toEqual([
        {
          recipient: mail('admin'),
          subject: expect.stringContaining('disabled'),
          provider: 'test_outbox',
        },
        {
          recipient: mail('owner'),
          subject: expect.stringContaining('disabled'),
          provider: 'test_outbox',
        },
      ]);
      const got = (await call(t.app, 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: testKey })).json();
      expect(got).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
      const events = (
        await call(t.app, 'GET', '/v1/events?type=webhook_endpoint.disabled', { key: testKey })
      ).json();
      expect(events.data[0].data.object).toMatchObject({ id: ep.id, status: 'disabled' });
      // re-enabling clears the failing state
      const again = await call(t.app, 'PATCH', `/v1/webhook-endpoints/${ep.id}`, {
        key: testKey,
        body: { status: 'enabled' },
      });
      expect(again.json()).toMatchObject({ status: 'enabled', disabled_reason: null });
    });
  });
});
