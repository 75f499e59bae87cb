import { bootTestApp, TestApp } from '../harness';
import { call, createOrg, TestOrg } from '../support/platform-fixtures';
import { runCli } from '../support/cli';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';

const PASSWORD = 'correct horse battery staple';

describe('console sign-in and API keys', () => {
  let t: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    org = await createOrg(t.app, 'pro');
    const accounts = t.app.get(AccountsService);
    for (const role of ['owner', 'admin', 'member', 'support'])
      await accounts.create(
        org.id,
        { email: `${role}@acme.test`, name: role, role, password: PASSWORD },
        { type: 'operator', id: 't' },
      );
  });
  afterAll(() => t.close());

  const signIn = async (email: string, password = PASSWORD, remoteAddress?: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password },
      remoteAddress,
    });
    const cookie = String(res.headers['set-cookie'] ?? '').split(';')[0];
    return { res, cookie };
  };
  const consoleCall = (method: 'GET' | 'POST', url: string, cookie: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { cookie }, payload: payload as object });

  it('signs in with e-mail and password and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const { res, cookie } = await signIn('Owner@Acme.test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: 'owner@acme.test', role: 'owner', organisation_id: org.id });
    expect(String(res.headers['set-cookie'])).toMatch(
      /gh_session=gh_sess_\w+; Path=\/console; HttpOnly; SameSite=Lax/,
    );
    // Secure only when APP_URL is HTTPS (these tests serve plain HTTP).
    expect(String(res.headers['set-cookie'])).not.toContain('Secure');
    const me = await consoleCall('GET', '/console/session', cookie);
    expect(me.json()).toMatchObject({ role: 'owner' });
    await t.app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie } });
    expect((await consoleCall('GET', '/console/session', cookie)).statusCode).toBe(401);
  });

  it('refuses a wrong password or an unknown e-mail alike', async () => {
    const wrong = await signIn('admin@acme.test', 'not the password');
    const unknown = await signIn('nobody@acme.test', 'not the password');
    expect([wrong.res.statusCode, unknown.res.statusCode]).toEqual([401, 401]);
    expect(wrong.res.json().detail).toBe(unknown.res.json().detail);
  });

  it('Owners and Admins create, list and revoke keys; the key is shown once and works at once', async () => {
    const { cookie } = await signIn('admin@acme.test');
    const created = await consoleCall('POST', '/console/api-keys', cookie, {
      name: 'Reception kiosk',
      kind: 'secret',
      mode: 'test',
      scopes: ['organisation:read', 'sites:read'],
    });
    expect(created.statusCode).toBe(201);
    const key = created.json() as { id: string; key: string; redacted: string };
    expect(key.key).toMatch(/^svc_sk_test_[0-9A-Za-z]{44}$/);
    expect((await call(t.app, 'GET', '/v1/organisation', { key: key.key })).statusCode).toBe(200);
    const list = await consoleCall('GET', '/console/api-keys', cookie);
    expect(list.body).not.toContain(key.key);
    const listed = (
      list.json() as { data: { id: string; redacted: string; last_used_at: string | null }[] }
    ).data.find((k) => k.id === key.id);
    expect(listed).toMatchObject({ redacted: key.redacted });
    expect(listed?.last_used_at).not.toBeNull();
    expect((await consoleCall('POST', `/console/api-keys/${key.id}/revoke`, cookie)).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/v1/organisation', { key: key.key })).statusCode).toBe(401);
    const again = await consoleCall('POST', `/console/api-keys/${key.id}/revoke`, cookie);
    expect(again.json()).toMatchObject({ code: 'invalid_state' });
  });

  it('validates key requests: unknown scopes, publishable keys with secret scopes', async () => {
    const { cookie } = await signIn('owner@acme.test');
    const bad = await consoleCall('POST', '/console/api-keys', cookie, {
      name: 'x',
      kind: 'publishable',
      mode: 'live',
      scopes: ['people:read', 'nope:read'],
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { location: string }) => e.location)).toEqual([
      'body.scopes.0',
      'body.scopes.1',
    ]);
    const custom = await consoleCall('POST', '/console/api-keys', cookie, {
      name: 'x',
      kind: 'secret',
      mode: 'live',
      scopes: ['custom:front_desk'],
    });
    expect(custom.statusCode).toBe(422);
  });

  it('a member cannot manage keys', async () => {
    const { cookie } = await signIn('member@acme.test');
    const res = await consoleCall('POST', '/console/api-keys', cookie, {
      name: 'x',
      kind: 'secret',
      mode: 'test',
      scopes: ['sites:read'],
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden' });
    expect((await consoleCall('GET', '/console/api-keys', cookie)).statusCode).toBe(403);
  });

  it('support staff cannot create, list or revoke keys', async () => {
    const { res, cookie } = await signIn('support@acme.test');
    expect(res.json()).toMatchObject({ role: 'support' });
    const owner = (await signIn('owner@acme.test')).cookie;
    const made = await consoleCall('POST', '/console/api-keys', owner, {
      name: 'x',
      kind: 'secret',
      mode: 'test',
      scopes: ['sites:read'],
    });
    const attempts = [
      await consoleCall('POST', '/console/api-keys', cookie, {
        name: 'x',
        kind: 'secret',
        mode: 'test',
        scopes: ['sites:read'],
      }),
      await consoleCall('GET', '/console/api-keys', cookie),
      await consoleCall('POST', `/console/api-keys/${made.json().id}/revoke`, cookie),
    ];
    for (const r of attempts) {
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ code: 'forbidden', detail: expect.stringContaining('support role') });
    }
    // The refused revocation changed nothing: the key still works.
    expect((await call(t.app, 'GET', '/v1/sites', { key: made.json().key })).statusCode).toBe(200);
  });

  it('a key may expire: expires_at must be a future RFC 3339 moment; after it the key is unauthorized', async () => {
    const { cookie } = await signIn('owner@acme.test');
    const body = { name: 'temp', kind: 'secret', mode: 'test', scopes: ['organisation:read'] };
    for (const [expires_at, message] of [
      ['tomorrow', /RFC 3339/],
      ['2001-01-01T00:00:00Z', /in the future/],
    ]) {
      const bad = await consoleCall('POST', '/console/api-keys', cookie, { ...body, expires_at });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors).toEqual([
        { location: 'body.expires_at', message: expect.stringMatching(message) },
      ]);
    }
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await consoleCall('POST', '/console/api-keys', cookie, { ...body, expires_at: soon });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ expires_at: soon });
    const key = created.json().key as string;
    expect((await call(t.app, 'GET', '/v1/organisation', { key })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(soon) - Date.now() + 50));
    const res = await call(t.app, 'GET', '/v1/organisation', { key });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthorized', detail: expect.stringMatching(/expired/) });
    const unlimited = await consoleCall('POST', '/console/api-keys', cookie, body);
    expect(unlimited.json().expires_at).toBeNull();
  });

  it('sign-in is limited to 20 attempts a minute per client address, whatever the e-mail', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/console/session',
            payload: { email: `someone-${i}@acme.test`, password: 'guess' },
            remoteAddress: '192.0.2.44',
          })
        ).statusCode,
      );
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses[20]).toBe(429);
    // Another address is not affected.
    const other = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email: 'owner@acme.test', password: PASSWORD },
      remoteAddress: '192.0.2.45',
    });
    expect(other.statusCode).toBe(200);
  });

  it('sign-in is rate limited against guessing (10 attempts per 15 minutes per e-mail)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await signIn('target@acme.test', `guess-${i}`, `203.0.113.${i + 1}`)).res.statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const blocked = await signIn('target@acme.test', PASSWORD, '203.0.113.99'); // from anywhere
    expect(blocked.res.statusCode).toBe(429);
    expect(Number(blocked.res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('sign-ins appear in the audit trail', async () => {
    const key = await org.key({ scopes: ['audit:read'] });
    const res = await call(t.app, 'GET', '/v1/audit-events?action=console.signed_in', { key });
    expect((res.json() as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(3);
    const failed = await call(t.app, 'GET', '/v1/audit-events?action=console.sign_in_failed', { key });
    expect((failed.json() as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(1);
  });
});

describe('operator CLI (org, sites, keys)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
  });
  afterAll(() => t.close());

  const cli = (...args: string[]) => runCli(t.db.url, ...args);

  it('creates an organisation with its sandbox, a site, and keys that work; prints JSON', async () => {
    const created = cli(
      'org',
      'create',
      '--name',
      'Cli Org',
      '--plan',
      'pro',
      '--country',
      'GH',
      '--time-zone',
      'Africa/Accra',
    );
    expect(created.organisation).toMatchObject({ slug: 'cli-org', plan: 'pro' });
    const sites = cli(
      'sites',
      'create',
      '--org',
      'cli-org',
      '--name',
      'Annex',
      '--time-zone',
      'Africa/Lagos',
      '--gates',
      'North,South',
    );
    expect(sites.data.map((s: { livemode: boolean }) => s.livemode)).toEqual([true, false]);
    const key = cli(
      'keys',
      'create',
      '--org',
      'cli-org',
      '--name',
      'ops',
      '--kind',
      'secret',
      '--mode',
      'test',
      '--scopes',
      'sites:read',
    );
    const res = await call(t.app, 'GET', '/v1/sites', { key: key.key });
    expect((res.json() as { data: { name: string; gates: { name: string }[] }[] }).data).toMatchObject([
      { name: 'Annex', gates: [{ name: 'North' }, { name: 'South' }] },
    ]);
    expect(cli('keys', 'list', '--org', 'cli-org').data).toHaveLength(1);
    expect(cli('keys', 'revoke', '--org', 'cli-org', key.id).revoked_at).not.toBeNull();
    expect((await call(t.app, 'GET', '/v1/sites', { key: key.key })).statusCode).toBe(401);
    // six CLI starts in series (each builds the CLI graph): more than 30 s on a busy 2-core machine; a wait, not a timing
  }, 120_000);
});
