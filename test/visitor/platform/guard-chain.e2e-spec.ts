import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { ProbeModule } from '../../fixtures/probe.module';
import { Contract } from '../../support/openapi-contract';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import { OrganisationsService } from '../../../src/visitor/organisations/organisations.service';
import { ApiKeysService } from '../../../src/visitor/api-keys/api-keys.service';
import { RequestLogRepository } from '../../../src/ops/request-log/request-log.repository';
import { RequestLogService } from '../../../src/ops/request-log/request-log.service';

describe('/v1 guard chain', () => {
  let t: TestApp;
  let contract: Contract;
  let pro: TestOrg;
  let testKey: string;

  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [ProbeModule], env: { RUN_WORKER: 'false' } });
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    pro = await createOrg(t.app, 'pro');
    testKey = await pro.key();
  });
  afterAll(() => t.close());

  const problem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    return res.json() as { code: string; status: number; detail: string; errors: { location: string }[] };
  };

  it('serves a valid key: organisation, livemode from the key, contract-valid', async () => {
    const res = await call(t.app, 'GET', '/v1/organisation', { key: testKey });
    expect(res.statusCode).toBe(200);
    contract.expectValid(res, 'GET', '/v1/organisation');
    expect(res.json()).toMatchObject({
      id: pro.id,
      plan: 'pro',
      livemode: false,
      wallet_balance: { amount: 0, currency: 'GHS' },
    });
    const live = await call(t.app, 'GET', '/v1/organisation', { key: await pro.key({ mode: 'live' }) });
    expect(live.json()).toMatchObject({ id: pro.id, livemode: true });
  });

  it('missing header → unauthorized at header.Authorization', async () => {
    const res = await call(t.app, 'GET', '/v1/organisation');
    expect(res.statusCode).toBe(401);
    contract.expectValid(res, 'GET', '/v1/organisation');
    expect(problem(res)).toMatchObject({
      code: 'unauthorized',
      errors: [{ location: 'header.Authorization' }],
    });
  });

  it('Basic scheme → unauthorized', async () => {
    const res = await call(t.app, 'GET', '/v1/organisation', {
      headers: { authorization: `Basic ${Buffer.from(`${testKey}:`).toString('base64')}` },
    });
    expect(res.statusCode).toBe(401);
    expect(problem(res).code).toBe('unauthorized');
  });

  it('the Bearer scheme name is matched case-insensitively (RFC 9110)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr'])
      expect(
        (await call(t.app, 'GET', '/v1/organisation', { headers: { authorization: `${scheme} ${testKey}` } }))
          .statusCode,
      ).toBe(200);
    for (const header of [`Bearer`, `Bearer ${testKey} extra`, `Bearertoken ${testKey}`]) {
      const res = await call(t.app, 'GET', '/v1/organisation', { headers: { authorization: header } });
      expect(res.statusCode).toBe(401);
    }
  });

  it('a key in the query string or a cookie is never read', async () => {
    for (const url of [`/v1/organisation?api_key=${testKey}`, `/v1/organisation?access_token=${testKey}`]) {
      const res = await call(t.app, 'GET', url);
      expect(res.statusCode).toBe(401);
    }
    const res = await call(t.app, 'GET', '/v1/organisation', { headers: { cookie: `api_key=${testKey}` } });
    expect(res.statusCode).toBe(401);
  });

  it('an unknown key, or a known lookup with a wrong secret, is unauthorized', async () => {
    const forged = testKey.slice(0, -4) + (testKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const key of ['svc_sk_test_nope', forged]) {
      const res = await call(t.app, 'GET', '/v1/organisation', { key });
      expect(res.statusCode).toBe(401);
    }
  });

  it('a revoked key is unauthorized at once', async () => {
    const created = await t.app
      .get(ApiKeysService)
      .create(
        pro.id,
        { name: 'short-lived', kind: 'secret', mode: 'test', scopes: ['organisation:read'] },
        { type: 'operator', id: 't' },
      );
    expect((await call(t.app, 'GET', '/v1/organisation', { key: created.key })).statusCode).toBe(200);
    await t.app.get(ApiKeysService).revoke(pro.id, created.id, { type: 'operator', id: 't' });
    const res = await call(t.app, 'GET', '/v1/organisation', { key: created.key });
    expect(res.statusCode).toBe(401);
    expect(problem(res).detail).toMatch(/revoked/);
  });

  it('a test key on a live object id is not_found; so is another organisation’s object', async () => {
    const liveKey = await pro.key({ mode: 'live' });
    const created = await call(t.app, 'POST', '/v1/people', {
      key: liveKey,
      body: { name: 'Ama Mensah', email: 'ama@example.com' },
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect((await call(t.app, 'GET', `/v1/people/${id}`, { key: liveKey })).statusCode).toBe(200);
    const res = await call(t.app, 'GET', `/v1/people/${id}`, { key: testKey });
    expect(res.statusCode).toBe(404);
    expect(problem(res).code).toBe('not_found');
    const other = await createOrg(t.app, 'pro');
    expect(
      (await call(t.app, 'GET', `/v1/people/${id}`, { key: await other.key({ mode: 'live' }) })).statusCode,
    ).toBe(404);
  });

  it('a publishable key on GET /v1/people is forbidden', async () => {
    const pk = await pro.key({ kind: 'publishable' });
    expect(pk).toMatch(/^svc_pk_test_/);
    const res = await call(t.app, 'GET', '/v1/people', { key: pk });
    expect(res.statusCode).toBe(403);
    expect(problem(res).code).toBe('forbidden');
  });

  it('a Growth live key on the REST API is plan_required; its test key works', async () => {
    const growth = await createOrg(t.app, 'growth');
    for (const url of ['/v1/people', '/v1/sites', '/v1/organisation']) {
      const res = await call(t.app, 'GET', url, { key: await growth.key({ mode: 'live' }) });
      expect(res.statusCode).toBe(403);
      expect(problem(res).code).toBe('plan_required');
    }
    expect(
      (await call(t.app, 'GET', '/v1/people', { key: await growth.key({ mode: 'test' }) })).statusCode,
    ).toBe(200);
    const free = await createOrg(t.app, 'free');
    expect(
      (await call(t.app, 'GET', '/v1/sites', { key: await free.key({ mode: 'live' }) })).statusCode,
    ).toBe(403);
    expect(
      (await call(t.app, 'GET', '/v1/sites', { key: await free.key({ mode: 'test' }) })).statusCode,
    ).toBe(200);
  });

  it('a live publishable key below Pro is plan_required, naming the publishable-key rule; on Pro it works', async () => {
    const growth = await createOrg(t.app, 'growth');
    const pk = await growth.key({ mode: 'live', kind: 'publishable', scopes: ['forms:read'] });
    expect(pk).toMatch(/^svc_pk_live_/);
    const res = await call(t.app, 'GET', '/v1/visit-types', { key: pk });
    expect(res.statusCode).toBe(403);
    expect(problem(res)).toMatchObject({
      code: 'plan_required',
      detail: expect.stringMatching(/publishable keys .* need the Pro or Enterprise plan; .* growth/),
    });
    // Its test-mode twin works on Growth, and a live publishable key works on Pro.
    const testPk = await growth.key({ mode: 'test', kind: 'publishable', scopes: ['forms:read'] });
    expect((await call(t.app, 'GET', '/v1/visit-types', { key: testPk })).statusCode).toBe(200);
    const proPk = await pro.key({ mode: 'live', kind: 'publishable', scopes: ['forms:read'] });
    expect((await call(t.app, 'GET', '/v1/visit-types', { key: proPk })).statusCode).toBe(200);
  });

  it('a key without the scope is scope_missing, and detail names the scope', async () => {
    const key = await pro.key({ scopes: ['people:write'] });
    const res = await call(t.app, 'GET', '/v1/people', { key });
    expect(res.statusCode).toBe(403);
    expect(problem(res)).toMatchObject({
      code: 'scope_missing',
      detail: expect.stringContaining('people:read'),
    });
    // A write scope returns what it wrote but grants no read.
    const created = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Kofi', email: 'kofi@example.com' },
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect((await call(t.app, 'GET', `/v1/people/${id}`, { key })).statusCode).toBe(403);
  });

  it('Enterprise IP allow-list: outside → forbidden, inside → allowed', async () => {
    const ent = await createOrg(t.app, 'enterprise');
    await t.app
      .get(OrganisationsService)
      .update(ent.id, { ip_allow_list: ['10.1.0.0/16', '2001:db8::/32'] }, { type: 'operator', id: 't' });
    const key = await ent.key({ mode: 'live' });
    const outside = await call(t.app, 'GET', '/v1/organisation', { key, remoteAddress: '203.0.113.9' });
    expect(outside.statusCode).toBe(403);
    expect(problem(outside).code).toBe('forbidden');
    // A refused address is not counted against the organisation's allowance and gets no RateLimit headers
    // (as for an unknown key): a leaked key used from elsewhere cannot use up the allowance.
    expect(outside.headers['ratelimit-limit']).toBeUndefined();
    const inside = await call(t.app, 'GET', '/v1/organisation', { key, remoteAddress: '10.1.2.3' });
    expect(inside.statusCode).toBe(200);
    expect(inside.headers['ratelimit-remaining']).toBe('2999');
    expect(
      (await call(t.app, 'GET', '/v1/organisation', { key, remoteAddress: '2001:db8::7' })).statusCode,
    ).toBe(200);
  });

  it('a /v1 route without @Authorize is refused (deny by default)', async () => {
    const res = await call(t.app, 'GET', '/v1/__auth-probe/undeclared', { key: testKey });
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain('leaked');
  });

  it('cursor pagination: pages, tamper-proof cursors, limit bounds', async () => {
    const org = await createOrg(t.app, 'pro', 5);
    const key = await org.key();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(
        t.app,
        'GET',
        `/v1/sites?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(res.statusCode).toBe(200);
      contract.expectValid(res, 'GET', '/v1/sites');
      const page = res.json() as { data: { id: string }[]; next_cursor: string | null; has_more: boolean };
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.data.map((s) => s.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(org.sites.filter((s) => !s.livemode).map((s) => s.id));
    const first = (await call(t.app, 'GET', '/v1/sites?limit=2', { key })).json() as { next_cursor: string };
    const tampered = first.next_cursor.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    for (const [url, k] of [
      [`/v1/sites?cursor=${encodeURIComponent(tampered)}`, key],
      ['/v1/sites?cursor=garbage', key],
      [`/v1/sites?cursor=${encodeURIComponent(first.next_cursor)}`, await pro.key()],
    ] as const) {
      const res = await call(t.app, 'GET', url, { key: k });
      expect(res.statusCode).toBe(422);
      expect(problem(res)).toMatchObject({
        code: 'validation_failed',
        errors: [{ location: 'query.cursor' }],
      });
    }
    for (const limit of ['0', '101', 'ten']) {
      const res = await call(t.app, 'GET', `/v1/sites?limit=${limit}`, { key });
      expect(res.statusCode).toBe(422);
      expect(problem(res).errors[0].location).toBe('query.limit');
    }
    expect(
      ((await call(t.app, 'GET', '/v1/sites', { key })).json() as { data: unknown[] }).data,
    ).toHaveLength(5);
  });

  it('request log entries carry organisation, mode and credential', async () => {
    const res = await call(t.app, 'GET', '/v1/sites', { key: testKey });
    const requestId = res.headers['svc-request-id'] as string;
    await t.app.get(RequestLogService).flush();
    expect(await t.app.get(RequestLogRepository).findByIdOrRef(requestId)).toEqual([
      expect.objectContaining({
        requestId,
        organisationId: pro.id,
        livemode: false,
        credentialId: expect.stringMatching(/^key_/),
      }),
    ]);
  });

  it('key creation, revocation and first daily use are in the audit trail', async () => {
    const res = await call(t.app, 'GET', '/v1/audit-events?limit=100', { key: testKey });
    expect(res.statusCode).toBe(200);
    contract.expectValid(res, 'GET', '/v1/audit-events');
    const actions = (res.json() as { data: { action: string }[] }).data.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['organisation.created', 'api_key.created', 'api_key.revoked', 'api_key.used']),
    );
  });

  it('the audit trail in live mode is limited to the plan’s audit-trail period (nothing is deleted)', async () => {
    const org = await createOrg(t.app, 'pro');
    const pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    try {
      await pg.query(
        `INSERT INTO visitor.audit_event (id, organisation_id, livemode, action, actor_type, created_at)
         VALUES ('audit_old', $1, NULL, 'site.created', 'operator', now() - interval '400 days')`,
        [org.id],
      );
    } finally {
      await pg.end();
    }
    const ids = async (key: string) =>
      (
        (await call(t.app, 'GET', '/v1/audit-events?limit=100', { key })).json() as { data: { id: string }[] }
      ).data.map((e) => e.id);
    expect(await ids(await org.key({ mode: 'live' }))).not.toContain('audit_old'); // Pro: one year
    expect(await ids(await org.key({ mode: 'test' }))).toContain('audit_old'); // test mode hides nothing
  });
});
