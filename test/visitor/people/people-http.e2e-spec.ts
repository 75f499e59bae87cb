import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import { FormsService } from '../../../src/visitor/forms/forms.service';

/** A parsed JSON body, as `inject` gives it. */
type Body = ReturnType<typeof JSON.parse>;

/** People over HTTP with real keys; every response is checked against the served OpenAPI document. */
describe('people over HTTP', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let org: TestOrg;
  let key: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });
  beforeEach(async () => {
    org = await createOrg(t.app, 'pro');
    key = await org.key();
  });

  /** A request whose response must match the contract; the template names the documented path. */
  async function api(
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    body?: unknown,
    k = key,
  ): Promise<{ status: number; body: Body }> {
    const res = await call(t.app, method, url, { key: k, body });
    contract.expectValid(res, method, url);
    return { status: res.statusCode, body: res.json() as Body };
  }
  const create = (body: Record<string, unknown>, k = key) => api('POST', '/v1/people', body, k);
  const eventsOf = async (id: string) =>
    (
      await pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb #>> '{data,object,id}' = $1 ORDER BY created_at, id`,
        [id],
      )
    ).rows.map((r) => ({ type: r.type as string, object: JSON.parse(r.body).data.object }));
  const locations = (body: Body) => (body.errors as { location: string }[]).map((e) => e.location).sort();

  it('refuses the NUL character (which PostgreSQL cannot store) at its location in a body or query, and a path holding it is not found', async () => {
    const before = (await api('GET', '/v1/people?limit=100')).body.data.length;
    const bad = await create({ name: 'Ama\u0000 Owusu', email: 'nul@corp.test' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      { location: 'body.name', message: 'must not contain the NUL character' },
    ]);
    expect((await api('GET', '/v1/people?limit=100')).body.data.length).toBe(before);
    const query = await api('GET', '/v1/people?q=a%00b');
    expect(query.status).toBe(422);
    expect(query.body.errors).toEqual([
      { location: 'query.q', message: 'must not contain the NUL character' },
    ]);
    // No object can have such an id.
    const path = await api('GET', '/v1/people/per_%00');
    expect(path.status).toBe(404);
    expect(path.body.code).toBe('not_found');
    const list = await create({ name: 'Ama Owusu', email: 'nul2@corp.test', site_ids: ['site_\u0000'] });
    expect(list.body.errors).toEqual([
      { location: 'body.site_ids.0', message: 'must not contain the NUL character' },
    ]);
  });

  it('PATCH changes the given fields only, records person.updated, and 404s for another organisation', async () => {
    const p = (await create({ name: 'Ama Mensah', email: 'ama@corp.test', department: 'Finance' })).body;
    const res = await api('PATCH', `/v1/people/${p.id}`, {
      job_title: 'Controller',
      phone: '+233244123456',
      can_host: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: p.id,
      name: 'Ama Mensah',
      department: 'Finance',
      job_title: 'Controller',
      phone: '+233244123456',
      can_host: false,
      active: true,
    });
    expect((await api('GET', `/v1/people/${p.id}`)).body).toEqual(res.body);
    const events = await eventsOf(p.id);
    expect(events.map((e) => e.type)).toEqual(['person.created', 'person.updated']);
    expect(events[1].object).toEqual(res.body);
    const bad = await api('PATCH', `/v1/people/${p.id}`, { phone: '0244123456', email: 'not-mail' });
    expect(bad.status).toBe(422);
    expect(locations(bad.body)).toEqual(['body.email', 'body.phone']);
    const other = await createOrg(t.app, 'pro');
    const elsewhere = await api('PATCH', `/v1/people/${p.id}`, { name: 'X' }, await other.key());
    expect(elsewhere).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await api('GET', `/v1/people/${p.id}`)).body.name).toBe('Ama Mensah');
  });

  it('keeps e-mails unique case-insensitively on create and on PATCH (409 conflict at body.email, nothing changed)', async () => {
    const kofi = (await create({ name: 'Kofi', email: 'kofi@corp.test' })).body;
    const dup = await create({ name: 'Kofi Two', email: 'KOFI@Corp.Test' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({
      code: 'conflict',
      errors: [{ location: 'body.email', message: 'is already used by another person' }],
    });
    const esi = (await create({ name: 'Esi', email: 'esi@corp.test' })).body;
    const patch = await api('PATCH', `/v1/people/${esi.id}`, { name: 'Esi K', email: 'Kofi@corp.test' });
    expect(patch).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect((await api('GET', `/v1/people/${esi.id}`)).body).toMatchObject({
      name: 'Esi',
      email: 'esi@corp.test',
    });
    expect((await eventsOf(esi.id)).map((e) => e.type)).toEqual(['person.created']);
    // changing only the case of one's own e-mail is no conflict
    const own = await api('PATCH', `/v1/people/${kofi.id}`, { email: 'Kofi@corp.test' });
    expect(own).toMatchObject({ status: 200, body: { email: 'Kofi@corp.test' } });
  });

  it('deactivates and reactivates with events carrying the Person; twice is invalid_state; unknown is not_found', async () => {
    const p = (await create({ name: 'Yaw', email: 'yaw@corp.test' })).body;
    const off = await api('POST', `/v1/people/${p.id}/deactivate`);
    expect(off).toMatchObject({ status: 200, body: { id: p.id, active: false } });
    const again = await api('POST', `/v1/people/${p.id}/deactivate`);
    expect(again).toMatchObject({ status: 409, body: { code: 'invalid_state' } });
    const on = await api('POST', `/v1/people/${p.id}/reactivate`);
    expect(on).toMatchObject({ status: 200, body: { id: p.id, active: true } });
    expect((await api('POST', `/v1/people/${p.id}/reactivate`)).body.code).toBe('invalid_state');
    expect((await api('POST', '/v1/people/person_nobody/deactivate')).status).toBe(404);
    const events = await eventsOf(p.id);
    expect(events.map((e) => e.type)).toEqual(['person.created', 'person.deactivated', 'person.reactivated']);
    expect(events[1].object).toEqual(off.body);
    expect(events[2].object).toEqual(on.body);
  });

  it('lists with q, can_host and email filters and walks every page by cursor', async () => {
    const made: string[] = [];
    for (const [name, email, can_host] of [
      ['Abena Owusu', 'abena@corp.test', true],
      ['Kwame Owusu', 'kwame@corp.test', false],
      ['Adjoa Boateng', 'adjoa@corp.test', true],
      ['Kojo Asante', 'kojo@corp.test', true],
      ['Efua Owusu-Ansah', 'efua@corp.test', true],
    ] as const)
      made.push((await create({ name, email, can_host })).body.id);
    await api('POST', `/v1/people/${made[3]}/deactivate`);
    const names = async (query: string) => {
      const res = await api('GET', `/v1/people${query}`);
      expect(res.status).toBe(200);
      return (res.body.data as { name: string }[]).map((p) => p.name);
    };
    expect(await names('?q=owusu')).toEqual(['Abena Owusu', 'Kwame Owusu', 'Efua Owusu-Ansah']);
    expect(await names('?q=adj')).toEqual(['Adjoa Boateng']);
    expect(await names('?q=kwame%20owu')).toEqual(['Kwame Owusu']);
    // can_host=true: active people who can host (Kojo is deactivated)
    expect(await names('?can_host=true')).toEqual(['Abena Owusu', 'Adjoa Boateng', 'Efua Owusu-Ansah']);
    expect(await names('?can_host=false')).toEqual(['Kwame Owusu']);
    expect(await names('?email=KWAME%40corp.test')).toEqual(['Kwame Owusu']);
    expect(await names('?email=nobody%40corp.test')).toEqual([]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api(
        'GET',
        `/v1/people?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...(res.body.data as { id: string }[]).map((p) => p.id));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(made);
    const bad = await api('GET', '/v1/people?can_host=maybe&limit=0');
    expect(bad.status).toBe(422);
    expect(locations(bad.body)).toEqual(['query.can_host', 'query.limit']);
    // Not an integer fails IsInt, Min and Max, which share one message: one error, not three.
    const notInteger = await api('GET', '/v1/people?limit=abc');
    expect(notInteger.status).toBe(422);
    expect(notInteger.body.errors).toEqual([
      { location: 'query.limit', message: 'must be an integer from 1 to 100' },
    ]);
    const twice = await api('GET', '/v1/people?limit=5&limit=6&q=a');
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual([{ location: 'query.limit', message: 'must be given once' }]);
    const forged = await api('GET', '/v1/people?cursor=bm90LWEtY3Vyc29y');
    expect(forged).toMatchObject({ status: 422, body: { errors: [{ location: 'query.cursor' }] } });
  });

  it('refuses site ids that are not sites of this organisation and mode, each at its index', async () => {
    const testSite = org.sites.find((s) => !s.livemode)!.id;
    const liveSite = org.sites.find((s) => s.livemode)!.id;
    const other = (await createOrg(t.app, 'pro')).sites.find((s) => !s.livemode)!.id;
    const bad = await create({ name: 'S', email: 's@corp.test', site_ids: [testSite, liveSite, other] });
    expect(bad.status).toBe(422);
    expect(locations(bad.body)).toEqual(['body.site_ids.1', 'body.site_ids.2']);
    const malformed = await create({ name: 'S', email: 's@corp.test', site_ids: ['nope'] });
    expect(malformed.status).toBe(422);
    expect(locations(malformed.body)[0]).toMatch(/^body\.site_ids/);
    const ok = await create({ name: 'S', email: 's@corp.test', site_ids: [testSite, testSite] });
    expect(ok).toMatchObject({ status: 201, body: { site_ids: [testSite] } });
    const patch = await api('PATCH', `/v1/people/${ok.body.id}`, { site_ids: [liveSite] });
    expect(locations(patch.body)).toEqual(['body.site_ids.0']);
    expect((await api('GET', `/v1/people/${ok.body.id}`)).body.site_ids).toEqual([testSite]);
  });

  it('checks that Person answers of the person form name a person of this organisation and mode', async () => {
    await t.app.get(FormsService).publish({ organisationId: org.id, livemode: false }, 'person', {
      type: 'object',
      properties: { mentor: { type: 'string', 'x-svc-type': 'person' } },
    });
    const mentor = (await create({ name: 'Mentor', email: 'mentor@corp.test' })).body.id;
    const otherOrgPerson = (
      await create({ name: 'Far', email: 'far@corp.test' }, await (await createOrg(t.app, 'pro')).key())
    ).body.id;
    const nobody = await create({
      name: 'A',
      email: 'a@corp.test',
      custom_fields: { mentor: 'person_nobody' },
    });
    expect(nobody.status).toBe(422);
    expect(nobody.body.errors).toEqual([
      { location: 'body.custom_fields.mentor', message: 'no person person_nobody' },
    ]);
    const far = await create({ name: 'A', email: 'a@corp.test', custom_fields: { mentor: otherOrgPerson } });
    expect(locations(far.body)).toEqual(['body.custom_fields.mentor']);
    expect((await api('GET', '/v1/people?email=a%40corp.test')).body.data).toEqual([]);
    const ok = await create({ name: 'A', email: 'a@corp.test', custom_fields: { mentor } });
    expect(ok).toMatchObject({ status: 201, body: { custom_fields: { mentor } } });
    const patch = await api('PATCH', `/v1/people/${ok.body.id}`, {
      custom_fields: { mentor: 'person_gone' },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toEqual([
      { location: 'body.custom_fields.mentor', message: 'no person person_gone' },
    ]);
    expect((await api('GET', `/v1/people/${ok.body.id}`)).body.custom_fields).toEqual({ mentor });
  });

  describe('the live-mode host limit (Pro: 1000 active hosts)', () => {
    let live: string;
    let tenantArgs: [string, boolean];
    /** Fills the live tenant up to `n` active hosts with rows written directly (plus ones that do not count). */
    async function fillHosts(n: number): Promise<void> {
      await pg.query(
        `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, can_host, active, created_at, updated_at)
         SELECT 'person_fill' || $1 || i, $1, $2, 'Host ' || i, 'host' || i || '@fill.test', true, true, now(), now()
           FROM generate_series(1, $3) i`,
        [...tenantArgs, n],
      );
    }
    const activeHosts = async () =>
      (
        await pg.query(
          `SELECT count(*)::int AS n FROM visitor.person WHERE organisation_id = $1 AND livemode = $2 AND can_host AND active`,
          tenantArgs,
        )
      ).rows[0].n as number;

    beforeEach(async () => {
      live = await org.key({ mode: 'live' });
      tenantArgs = [org.id, true];
    });

    it('holds on create, on PATCH can_host: true and on reactivate; people who do not host are not counted', async () => {
      const guard = (await create({ name: 'Guard', email: 'guard@corp.test', can_host: false }, live)).body;
      const former = (await create({ name: 'Former', email: 'former@corp.test' }, live)).body;
      await api('POST', `/v1/people/${former.id}/deactivate`, undefined, live);
      await fillHosts(999);
      const last = await create({ name: 'Last', email: 'last@corp.test' }, live);
      expect(last.status).toBe(201);
      expect(await activeHosts()).toBe(1000);
      const over = await create({ name: 'Over', email: 'over@corp.test' }, live);
      expect(over).toMatchObject({ status: 403, body: { code: 'plan_required' } });
      expect(over.body.detail).toContain('1000 hosts');
      const nonHost = await create({ name: 'Porter', email: 'porter@corp.test', can_host: false }, live);
      expect(nonHost.status).toBe(201);
      const patch = await api('PATCH', `/v1/people/${guard.id}`, { can_host: true, name: 'Guard 2' }, live);
      expect(patch).toMatchObject({ status: 403, body: { code: 'plan_required' } });
      expect((await api('GET', `/v1/people/${guard.id}`, undefined, live)).body).toMatchObject({
        name: 'Guard',
        can_host: false,
      });
      const back = await api('POST', `/v1/people/${former.id}/reactivate`, undefined, live);
      expect(back).toMatchObject({ status: 403, body: { code: 'plan_required' } });
      expect(await activeHosts()).toBe(1000);
      // a host already counted may be changed freely
      expect(
        (await api('PATCH', `/v1/people/${last.body.id}`, { can_host: true, name: 'L' }, live)).status,
      ).toBe(200);
      // test mode has no host limit
      expect((await create({ name: 'Sandbox', email: 'sb@corp.test' })).status).toBe(201);
      // freeing a place lets the reactivation through
      await api('POST', `/v1/people/${last.body.id}/deactivate`, undefined, live);
      expect((await api('POST', `/v1/people/${former.id}/reactivate`, undefined, live)).status).toBe(200);
      expect(await activeHosts()).toBe(1000);
    });

    it('is atomic: concurrent creates, PATCHes and reactivations for the last place, exactly one wins', async () => {
      const guards: string[] = [];
      for (let i = 0; i < 3; i++)
        guards.push(
          (await create({ name: `G${i}`, email: `g${i}@corp.test`, can_host: false }, live)).body.id,
        );
      const former = (await create({ name: 'Former', email: 'former@corp.test' }, live)).body.id;
      await api('POST', `/v1/people/${former}/deactivate`, undefined, live);
      await fillHosts(999);
      const results = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => create({ name: `N${i}`, email: `n${i}@corp.test` }, live)),
        ...guards.map((id) => api('PATCH', `/v1/people/${id}`, { can_host: true }, live)),
        api('POST', `/v1/people/${former}/reactivate`, undefined, live),
      ]);
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 403)).toHaveLength(results.length - 1);
      for (const r of results.filter((x) => x.status === 403)) expect(r.body.code).toBe('plan_required');
      expect(await activeHosts()).toBe(1000);
    });
  });
});
