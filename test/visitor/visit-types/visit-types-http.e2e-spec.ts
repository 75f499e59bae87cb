import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call, createOrg } from '../../support/platform-fixtures';
import { BUILT_IN_TYPES, VisitTypesService } from '../../../src/visitor/visit-types/visit-types.service';

describe('GET /v1/visit-types and /v1/forms through the guard chain', () => {
  let t: TestApp;
  let contract: Contract;
  let secret: string;
  let publishable: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    const org = await createOrg(t.app, 'pro');
    secret = await org.key();
    publishable = await org.key({ kind: 'publishable' });
    await t.app
      .get(VisitTypesService)
      .save({ organisationId: org.id, livemode: false }, 'interview', { pre_registration: true });
  });
  afterAll(() => t.close());

  it("pages like every /v1 list: built-in types first, then the organisation's own by key; tamper-proof cursor", async () => {
    const org = await createOrg(t.app, 'pro');
    const key = await org.key();
    const svc = t.app.get(VisitTypesService);
    for (const k of ['vendor', 'audit', 'zoo_tour', 'board_meeting'])
      await svc.save({ organisationId: org.id, livemode: false }, k, { name: k });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url = `/v1/visit-types?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call(t.app, 'GET', url, { key });
      expect(res.statusCode).toBe(200);
      contract.expectValid(res, 'GET', '/v1/visit-types');
      const page = res.json() as { data: { key: string }[]; next_cursor: string | null; has_more: boolean };
      expect(page.data.length).toBeLessThanOrEqual(3);
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.data.map((v) => v.key));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...Object.keys(BUILT_IN_TYPES), 'audit', 'board_meeting', 'vendor', 'zoo_tour']);
    const res = await call(t.app, 'GET', '/v1/visit-types?cursor=bogus.cursor', { key });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].location).toBe('query.cursor');
  });

  it('a secret key sees every type; a publishable key only the open ones, with their public form', async () => {
    const all = await call(t.app, 'GET', '/v1/visit-types', { key: secret });
    expect(all.statusCode).toBe(200);
    contract.expectValid(all, 'GET', '/v1/visit-types');
    expect((all.json() as { data: { key: string }[] }).data.map((v) => v.key)).toEqual(
      expect.arrayContaining(['meeting', 'interview', 'delivery', 'contractor', 'event', 'other']),
    );
    const open = await call(t.app, 'GET', '/v1/visit-types', { key: publishable });
    expect(open.statusCode).toBe(200);
    expect(open.json()).toMatchObject({
      data: [{ key: 'interview', pre_registration: true, public_form: { version: expect.any(Number) } }],
    });
    expect((await call(t.app, 'GET', '/v1/visit-types/interview', { key: publishable })).statusCode).toBe(
      200,
    );
    const closed = await call(t.app, 'GET', '/v1/visit-types/meeting', { key: publishable });
    expect(closed.statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/v1/visit-types/meeting', { key: secret })).statusCode).toBe(200);
  });

  it('GET /v1/forms is closed to publishable keys', async () => {
    const res = await call(t.app, 'GET', '/v1/forms', { key: publishable });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden' });
    const ok = await call(t.app, 'GET', '/v1/forms', { key: secret });
    expect(ok.statusCode).toBe(200);
    contract.expectValid(ok, 'GET', '/v1/forms');
    expect(ok.json()).toMatchObject({
      visit: { version: expect.any(Number) },
      person: { version: expect.any(Number) },
    });
  });
});
