import { randomUUID } from 'node:crypto';
import { bootVisitorOrg, VisitorOrg } from '../../support/visitor-org';
import { call, createOrg } from '../../support/platform-fixtures';
import { FormsService } from '../../../src/visitor/forms/forms.service';

/** Issue 24 item 8: deviations from the spec that an outside audit of /v1 found. */
describe('audit deviations on /v1 (issue 24, item 8)', () => {
  let v: VisitorOrg;
  let t: VisitorOrg['t'];
  let pg: VisitorOrg['pg'];
  let org: VisitorOrg['org'];
  let key: string;
  let site: string;
  let host: string;
  let phoneSeq = 2000;
  const newPhone = () => `+23324${String(4100000 + phoneSeq++).padStart(7, '0')}`;
  const visit = (...args: Parameters<VisitorOrg['visit']>) => v.visit(...args);

  beforeAll(async () => {
    v = await bootVisitorOrg();
    ({ t, pg, org, key, site, host } = v);
  });
  afterAll(() => v.close());

  it('a retry of POST /v1/visits after the visitor was erased replays, redacted, and creates or sends nothing', async () => {
    const name = `Retry ${randomUUID().slice(0, 8)}`;
    const body = { visitor: { name, phone: newPhone(), email: 'retry@example.com' }, purpose: `see ${name}` };
    const idem = randomUUID();
    const first = await visit(body, key, idem);
    expect(first.statusCode).toBe(201);
    const { id, visitor } = first.json() as { id: string; visitor: { id: string } };
    const created = async () =>
      (
        await pg.query(
          `SELECT count(*)::int AS n FROM visitor.event WHERE organisation_id = $1 AND type = 'visit.created'`,
          [org.id],
        )
      ).rows[0].n as number;
    const createdBefore = await created();

    expect((await call(t.app, 'DELETE', `/v1/visitors/${visitor.id}`, { key })).statusCode).toBe(204);
    const again = await visit(body, key, idem);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toMatchObject({
      id,
      visitor: { id: visitor.id, name: null, phone: null, email: null, company: null },
      purpose: '',
    });
    expect(await created()).toBe(createdBefore);
    expect((await call(t.app, 'GET', `/v1/visitors/${visitor.id}`, { key })).statusCode).toBe(404);
    const trace = await pg.query(
      `SELECT count(*)::int AS n FROM visitor.idempotency_key WHERE response_body LIKE $1`,
      [`%${name}%`],
    );
    expect(trace.rows[0].n).toBe(0);
  });

  it('PATCH custom_fields of a visit keeps the answers the key cannot see (sensitive, masked); people too', async () => {
    const tenant = { organisationId: org.id, livemode: false };
    const questions = {
      type: 'object' as const,
      properties: {
        note: { type: 'string' },
        id_number: { type: 'string', 'x-svc-sensitive': true },
        badge_code: { type: 'string', 'x-svc-masked': true },
      },
    };
    await t.app.get(FormsService).publish(tenant, 'visit', questions);
    await t.app.get(FormsService).publish(tenant, 'person', questions);
    const answers = { note: 'first', id_number: 'GHA-123', badge_code: 'B7' };
    const v = await visit({ visitor: { name: 'Kofi', phone: newPhone() }, custom_fields: answers });
    expect(v.statusCode).toBe(201);
    expect(v.json().custom_fields).toEqual({ note: 'first' });
    const patched = await call(t.app, 'PATCH', `/v1/visits/${v.json().id}`, {
      key,
      body: { custom_fields: { note: 'second' } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().custom_fields).toEqual({ note: 'second' });
    const stored = await pg.query(`SELECT custom_fields FROM visitor.visit WHERE id = $1`, [v.json().id]);
    expect(stored.rows[0].custom_fields).toEqual({ ...answers, note: 'second' });

    const p = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Esi', email: 'esi@corp.test', custom_fields: answers },
    });
    expect(p.statusCode).toBe(201);
    const pp = await call(t.app, 'PATCH', `/v1/people/${p.json().id}`, {
      key,
      body: { custom_fields: { note: 'second' } },
    });
    expect(pp.json().custom_fields).toEqual({ note: 'second' });
    const person = await pg.query(`SELECT custom_fields FROM visitor.person WHERE id = $1`, [p.json().id]);
    expect(person.rows[0].custom_fields).toEqual({ ...answers, note: 'second' });
  });

  it('events older than 30 days are neither listed, fetched nor redeliverable, even before the purge runs', async () => {
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
    const insert = async (daysAgo: number) => {
      const id = `evt_${randomUUID().replace(/-/g, '')}`;
      const envelope = {
        id,
        type: 'person.updated',
        created_at: at(daysAgo).toISOString(),
        organisation_id: org.id,
        livemode: false,
        data: { object: { id: host } },
      };
      await pg.query(
        `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body) VALUES ($1, $2, false, $3, $4, $5)`,
        [id, org.id, envelope.type, at(daysAgo), JSON.stringify(envelope)],
      );
      return id;
    };
    const old = await insert(30.01);
    const recent = await insert(29.9);
    const listed = (await call(t.app, 'GET', '/v1/events?type=person.updated&limit=100', { key })).json();
    const ids = (listed.data as { id: string }[]).map((e) => e.id);
    expect(ids).toContain(recent);
    expect(ids).not.toContain(old);
    expect((await call(t.app, 'GET', `/v1/events/${recent}`, { key })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/v1/events/${old}`, { key })).statusCode).toBe(404);
    const redeliver = await call(t.app, 'POST', `/v1/events/${old}/redeliver`, { key, body: {} });
    expect(redeliver.statusCode).toBe(404);
  });

  it('an integer query parameter is plain decimal digits only, on both surfaces', async () => {
    for (const value of ['0x10', '1e2', '%205', '1.0', '+5', '']) {
      const v1 = await call(t.app, 'GET', `/v1/people?limit=${value}`, { key });
      expect({ value, status: v1.statusCode, errors: v1.json().errors }).toEqual({
        value,
        status: 422,
        errors: [{ location: 'query.limit', message: 'must be an integer from 1 to 100' }],
      });
      for (const name of ['limit', 'page']) {
        const pub = await t.app.inject({ method: 'GET', url: `/public/v1/campaigns?${name}=${value}` });
        expect({ value, name, status: pub.statusCode, message: pub.json().error.message }).toEqual({
          value,
          name,
          status: 400,
          message: expect.stringContaining(`query.${name}`),
        });
      }
    }
    expect((await call(t.app, 'GET', '/v1/people?limit=10', { key })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/public/v1/campaigns?limit=10&page=2' })).statusCode,
    ).toBe(200);
  });

  it('a null for a PATCH field that cannot be null, and a blank person name, are validation_failed at the field', async () => {
    const v = (await visit({ visitor: { name: 'Kofi', phone: newPhone() } })).json();
    for (const field of ['host_id', 'site_id', 'type', 'custom_fields']) {
      const res = await call(t.app, 'PATCH', `/v1/visits/${v.id}`, { key, body: { [field]: null } });
      expect({ field, status: res.statusCode, errors: res.json().errors }).toEqual({
        field,
        status: 422,
        errors: [{ location: `body.${field}`, message: 'must not be null' }],
      });
    }
    const after = (await call(t.app, 'GET', `/v1/visits/${v.id}`, { key })).json();
    expect(after).toMatchObject({ host_id: host, site_id: site, type: 'meeting' });
    for (const name of ['', '   ']) {
      const res = await call(t.app, 'POST', '/v1/people', { key, body: { name, email: 'blank@corp.test' } });
      expect({ name, status: res.statusCode, errors: res.json().errors }).toEqual({
        name,
        status: 422,
        errors: [{ location: 'body.name', message: 'must not be blank' }],
      });
      const patch = await call(t.app, 'PATCH', `/v1/people/${host}`, { key, body: { name } });
      expect({ name, status: patch.statusCode }).toEqual({ name, status: 422 });
    }
  });

  it('PATCH /v1/people: a null for a field a person always has is validation_failed; nullable fields clear', async () => {
    const person = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Yaw Null', email: 'yaw.null@corp.test', phone: '+233244999001', department: 'Ops' },
    });
    expect(person.statusCode).toBe(201);
    const id = person.json().id as string;
    for (const field of ['name', 'email', 'site_ids', 'can_host', 'custom_fields']) {
      const res = await call(t.app, 'PATCH', `/v1/people/${id}`, { key, body: { [field]: null } });
      expect({ field, status: res.statusCode, errors: res.json().errors }).toEqual({
        field,
        status: 422,
        errors: [{ location: `body.${field}`, message: 'must not be null' }],
      });
    }
    expect((await call(t.app, 'GET', `/v1/people/${id}`, { key })).json()).toMatchObject({
      name: 'Yaw Null',
      email: 'yaw.null@corp.test',
      can_host: true,
    });
    const cleared = await call(t.app, 'PATCH', `/v1/people/${id}`, {
      key,
      body: { phone: null, department: null },
    });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ name: 'Yaw Null', phone: null, department: null });
  });

  it('a __proto__ key in a valid JSON body is an unknown field, wherever it is, and pollutes nothing', async () => {
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/people',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        payload,
      });
    const top = await post('{"name":"Proto","email":"proto@corp.test","__proto__":{"polluted":true}}');
    expect({ status: top.statusCode, errors: top.json().errors }).toEqual({
      status: 422,
      errors: [{ location: 'body.__proto__', message: 'property __proto__ should not exist' }],
    });
    const nested = await post(
      '{"name":"Proto","email":"proto@corp.test","custom_fields":{"__proto__":{"a":1}}}',
    );
    expect({ status: nested.statusCode, errors: nested.json().errors }).toEqual({
      status: 422,
      errors: [{ location: 'body.custom_fields.__proto__', message: 'property __proto__ should not exist' }],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an unknown query parameter is refused on every /v1 route, /v1/organisation included', async () => {
    const org1 = await call(t.app, 'GET', '/v1/organisation?foo=1', { key });
    expect({ status: org1.statusCode, errors: org1.json().errors }).toEqual({
      status: 422,
      errors: [{ location: 'query.foo', message: 'is not a parameter of this endpoint' }],
    });
    const visitId = (await visit({ visitor: { name: 'Kofi', phone: newPhone() } })).json().id;
    const one = await call(t.app, 'GET', `/v1/visits/${visitId}?expand=all`, { key });
    expect(one.json().errors).toEqual([
      { location: 'query.expand', message: 'is not a parameter of this endpoint' },
    ]);
    expect((await call(t.app, 'GET', '/v1/organisation', { key })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/v1/visits/${visitId}`, { key })).statusCode).toBe(200);
  });

  it('live requests of Free and Starter organisations refused with plan_required carry no rate headers', async () => {
    for (const plan of ['free', 'starter']) {
      const small = await createOrg(t.app, plan);
      const live = await call(t.app, 'GET', '/v1/people', { key: await small.key({ mode: 'live' }) });
      expect({ plan, code: live.json().code, limit: live.headers['ratelimit-limit'] }).toEqual({
        plan,
        code: 'plan_required',
        limit: undefined,
      });
      // test mode has an allowance on every plan, and says so
      const test = await call(t.app, 'GET', '/v1/people', { key: await small.key() });
      expect({ plan, status: test.statusCode, limit: test.headers['ratelimit-limit'] }).toEqual({
        plan,
        status: 200,
        limit: '100000',
      });
    }
  });
});
