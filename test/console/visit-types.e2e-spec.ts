import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { call, createOrg, TestOrg } from '../support/platform-fixtures';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';
import type { Role } from '../../src/visitor/platform/scopes';
import { BUILT_IN_TYPES } from '../../src/visitor/visit-types/visit-types.service';

const OPERATOR = { type: 'operator' as const, id: 'test' };
const PASSWORD = 'correct horse battery staple';

/** Visit types managed in the console: list, get, save (live and test copy together), delete. */
describe('console visit types', () => {
  let t: TestApp;
  let pg: Client;
  let org: TestOrg;
  const cookies = {} as Record<Role, string>;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });
  beforeEach(async () => {
    org = await createOrg(t.app, 'pro');
    for (const role of ['owner', 'admin', 'member', 'support'] as const) {
      const email = `${role}@${org.id.slice(4).toLowerCase()}.test`;
      await t.app
        .get(AccountsService)
        .create(org.id, { email, name: role, role, password: PASSWORD }, OPERATOR);
      const res = await t.app.inject({
        method: 'POST',
        url: '/console/session',
        payload: { email, password: PASSWORD },
      });
      cookies[role] = String(res.headers['set-cookie']).split(';')[0];
    }
  });

  const consoleCall = (
    role: Role,
    method: 'GET' | 'PUT' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ) => t.app.inject({ method, url, headers: { cookie: cookies[role] }, payload });
  const rows = async (key: string) =>
    (
      await pg.query(
        `SELECT livemode, name, enabled, pre_registration FROM visitor.visit_type
          WHERE organisation_id = $1 AND key = $2 ORDER BY livemode`,
        [org.id, key],
      )
    ).rows;

  it('Owners and Admins create an organisation-defined type in live mode and its test copy', async () => {
    const res = await consoleCall('admin', 'PUT', '/console/visit-types/site_survey', {
      name: 'Site survey',
      pre_registration: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      key: 'site_survey',
      name: 'Site survey',
      enabled: true,
      built_in: false,
      pre_registration: true,
      public_form: { version: 0, schema: expect.objectContaining({ properties: {} }) },
    });
    expect(await rows('site_survey')).toEqual([
      { livemode: false, name: 'Site survey', enabled: true, pre_registration: true },
      { livemode: true, name: 'Site survey', enabled: true, pre_registration: true },
    ]);
    const off = await consoleCall('owner', 'PUT', '/console/visit-types/site_survey?mode=test', {
      enabled: false,
    });
    expect(off.json()).toMatchObject({ name: 'Site survey', enabled: false, pre_registration: true });
    for (const mode of ['live', 'test']) {
      const list = await consoleCall('member', 'GET', `/console/visit-types?mode=${mode}`);
      expect(list.statusCode).toBe(200);
      const keys = list.json().data.map((x: { key: string }) => x.key);
      expect(keys).toEqual([...Object.keys(BUILT_IN_TYPES), 'site_survey']);
      const one = await consoleCall('support', 'GET', `/console/visit-types/site_survey?mode=${mode}`);
      expect(one.json()).toMatchObject({ key: 'site_survey', enabled: false });
    }
    // the API sees the same type
    const api = await call(t.app, 'GET', '/v1/visit-types/site_survey', { key: await org.key() });
    expect(api.json()).toMatchObject({ key: 'site_survey', enabled: false, built_in: false });
    expect((await consoleCall('member', 'GET', '/console/visit-types/nope')).json().code).toBe('not_found');
  });

  it('Members and Support may read but not change or delete (forbidden; nothing changes)', async () => {
    await consoleCall('owner', 'PUT', '/console/visit-types/tour', { name: 'Tour' });
    for (const role of ['member', 'support'] as const) {
      const put = await consoleCall(role, 'PUT', '/console/visit-types/meeting', { enabled: false });
      expect({ role, status: put.statusCode, code: put.json().code }).toEqual({
        role,
        status: 403,
        code: 'forbidden',
      });
      const del = await consoleCall(role, 'DELETE', '/console/visit-types/tour');
      expect({ role, status: del.statusCode }).toEqual({ role, status: 403 });
    }
    expect(await rows('meeting')).toEqual([]);
    expect(await rows('tour')).toHaveLength(2);
    const anonymous = await t.app.inject({ method: 'GET', url: '/console/visit-types' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a bad key or body is validation_failed naming the field', async () => {
    for (const key of ['Bad-Key', '1st', `a${'b'.repeat(40)}`, 'with%20space']) {
      const res = await consoleCall('admin', 'PUT', `/console/visit-types/${key}`, { name: 'X' });
      expect({ key, status: res.statusCode, errors: res.json().errors }).toEqual({
        key,
        status: 422,
        errors: [{ location: 'path.key', message: expect.stringContaining('lowercase letters') }],
      });
    }
    const body = await consoleCall('admin', 'PUT', '/console/visit-types/tour', {
      enabled: 'yes',
      name: 'x'.repeat(101),
    });
    expect(body.statusCode).toBe(422);
    expect(
      body
        .json()
        .errors.map((e: { location: string }) => e.location)
        .sort(),
    ).toEqual(['body.enabled', 'body.name']);
    const mode = await consoleCall('admin', 'GET', '/console/visit-types?mode=prod');
    expect(mode.json().errors).toEqual([{ location: 'query.mode', message: 'must be live or test' }]);
    expect(await rows('tour')).toEqual([]);
  });

  it('saves both copies in one transaction: a failure on the test copy leaves no live copy', async () => {
    await pg.query(`
      CREATE OR REPLACE FUNCTION visitor.h5_refuse_test_copy() RETURNS trigger AS $$
      BEGIN
        IF NEW.key = 'doomed' AND NOT NEW.livemode THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await pg.query(`CREATE TRIGGER h5_refuse_test_copy BEFORE INSERT OR UPDATE ON visitor.visit_type
                    FOR EACH ROW EXECUTE FUNCTION visitor.h5_refuse_test_copy()`);
    try {
      const res = await consoleCall('owner', 'PUT', '/console/visit-types/doomed', { name: 'Doomed' });
      expect(res.statusCode).toBe(500);
      expect(await rows('doomed')).toEqual([]);
    } finally {
      await pg.query(`DROP TRIGGER h5_refuse_test_copy ON visitor.visit_type`);
      await pg.query(`DROP FUNCTION visitor.h5_refuse_test_copy()`);
    }
  });

  it('deletes an organisation-defined type nothing uses; built-in or used types are turned off instead', async () => {
    await consoleCall('admin', 'PUT', '/console/visit-types/tour', { name: 'Tour' });
    const del = await consoleCall('admin', 'DELETE', '/console/visit-types/tour');
    expect(del.statusCode).toBe(204);
    expect(await rows('tour')).toEqual([]);
    expect((await consoleCall('admin', 'GET', '/console/visit-types/tour?mode=test')).statusCode).toBe(404);
    expect((await consoleCall('admin', 'DELETE', '/console/visit-types/tour')).statusCode).toBe(404);
    const builtIn = await consoleCall('owner', 'DELETE', '/console/visit-types/meeting');
    expect(builtIn.statusCode).toBe(409);
    expect(builtIn.json()).toMatchObject({ code: 'invalid_state' });
    expect((await consoleCall('owner', 'DELETE', '/console/visit-types/Bad-Key')).json().errors).toEqual([
      { location: 'path.key', message: expect.any(String) },
    ]);

    // a type a visit has stays (conflict), in both modes
    await consoleCall('admin', 'PUT', '/console/visit-types/audit_visit', { name: 'Audit' });
    const key = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    const host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'H', email: 'h@h.test' } })
    ).json().id;
    const visit = await call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: host,
        type: 'audit_visit',
        visitor: { name: 'V', phone: '+233244555666' },
      },
    });
    expect(visit.statusCode).toBe(201);
    const used = await consoleCall('admin', 'DELETE', '/console/visit-types/audit_visit');
    expect(used.statusCode).toBe(409);
    expect(used.json()).toMatchObject({ code: 'conflict' });
    expect(await rows('audit_visit')).toHaveLength(2);
  });
});
