import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import type { TestApp } from '../harness';
import { until } from '../support/until';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  FormBrowser,
  insecure,
  PASSWORD,
  pkce,
  registerApp,
  v1Get,
} from '../support/oauth-fixtures';
import { call, type TestOrg } from '../support/platform-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { SCOPES } from '../../src/visitor/platform/scopes';

/**
 * A connected app's token at /v1, and the organisation's control over apps: the first connection needs an Owner
 * or Admin (a member waits; the admin approves in the console), scopes and the person's role are enforced, an
 * admin's revocation stops every token at once, and live and test data stay apart.
 */
describe('connected apps: approval, tokens at /v1, revocation', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let admin: AccountRow;
  let member: AccountRow;
  let as: oauth.AuthorizationServer;
  const redirectUri = 'https://app.example.com/callback';

  beforeAll(async () => {
    t = await bootOAuthApp();
    org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    member = await createPerson(t, org, 'member');
    as = await discover(t.baseUrl);
  });
  afterAll(() => t.close());

  const v1 = (token: string, path: string) => v1Get(t, token, path);

  async function consoleAs(person: AccountRow) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email: person.email, password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers['set-cookie']).split(';')[0];
    return (method: 'GET' | 'POST', url: string) => t.app.inject({ method, url, headers: { cookie } });
  }

  async function tokenFor(
    person: AccountRow,
    client: oauth.Client,
    o: { scope: string; mode: 'live' | 'test'; browser?: FormBrowser },
  ) {
    const { verifier, challenge } = await pkce();
    const done = await authorize(
      t.baseUrl,
      {
        person,
        clientId: client.client_id,
        redirectUri,
        scope: o.scope,
        state: 's',
        codeChallenge: challenge,
        mode: o.mode,
      },
      o.browser,
    );
    if (!done.callback) return { page: done.page, tokens: null };
    const params = oauth.validateAuthResponse(as, client, done.callback, 's');
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      insecure,
    );
    return { page: '', tokens: await oauth.processAuthorizationCodeResponse(as, client, res) };
  }

  it("a member's first connection waits for an admin; approved in the console, the member connects", async () => {
    const app = await registerApp(t, admin, 'public', redirectUri, 'Front desk helper');
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const browser = new FormBrowser();
    const waiting = await tokenFor(member, client, {
      scope: 'visits:read visits:write',
      mode: 'test',
      browser,
    });
    expect(waiting.tokens).toBeNull();
    expect(waiting.page).toContain('Waiting for your admin');
    // Coming back to the waiting page is not a second request: the audit trail has one.
    const again = await tokenFor(member, client, {
      scope: 'visits:read visits:write',
      mode: 'test',
      browser,
    });
    expect(again.page).toContain('Waiting for your admin');
    const requests = await t.app
      .get(DataSource)
      .query(
        `SELECT 1 FROM visitor.audit_event WHERE action = 'oauth_app.approval_requested' AND target_id = $1`,
        [app.client_id],
      );
    expect(requests).toHaveLength(1);

    const console = await consoleAs(admin);
    const listed = (await console('GET', '/console/connected-apps')).json();
    expect(listed).toEqual([
      expect.objectContaining({
        client_id: app.client_id,
        name: 'Front desk helper',
        source: 'console',
        status: 'pending',
        requested_by: member.id,
        requested_scopes: ['visits:read', 'visits:write'],
        connections: [],
      }),
    ]);
    const approved = await console('POST', `/console/connected-apps/${app.client_id}/approve`);
    expect(approved.json()).toMatchObject({ status: 'approved', decided_by: admin.id });

    const { tokens } = await tokenFor(member, client, {
      scope: 'visits:read visits:write',
      mode: 'test',
      browser,
    });
    expect(tokens?.scope).toBe('visits:read visits:write');
    const after = (await console('GET', '/console/connected-apps')).json();
    expect(after[0].connections).toEqual([
      expect.objectContaining({
        account_id: member.id,
        livemode: false,
        scopes: ['visits:read', 'visits:write'],
      }),
    ]);
  });

  it('a token: allowed call, scope_missing, nothing the role forbids, unauthorized after the admin revokes', async () => {
    const app = await registerApp(t, admin, 'public', redirectUri);
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    // the admin's own connection approves the app on the spot
    const { tokens: adminTokens } = await tokenFor(admin, client, {
      scope: 'organisation:read',
      mode: 'test',
    });
    expect(adminTokens).not.toBeNull();
    const { tokens } = await tokenFor(member, client, { scope: 'visits:read webhooks:manage', mode: 'test' });
    const token = tokens!.access_token;
    // the member's consent offered only what the role allows
    expect(tokens!.scope).toBe('visits:read');

    expect((await v1(token, '/v1/visits')).status).toBe(200);
    // the first use of the day is in the audit trail, naming the app and the person
    const used = await until(async () => {
      const rows: { actor_type: string; data: Record<string, string> }[] = await t.app
        .get(DataSource)
        .query(
          `SELECT actor_type, data FROM visitor.audit_event WHERE action = 'oauth_token.used' AND data->>'account_id' = $1`,
          [member.id],
        );
      return rows[0];
    });
    expect(used).toMatchObject({
      actor_type: 'oauth_token',
      data: { client_id: app.client_id, account_id: member.id },
    });
    const noScope = await v1(token, '/v1/people');
    expect(noScope.status).toBe(403);
    expect(await noScope.json()).toMatchObject({ code: 'scope_missing' });
    const notGranted = await v1(token, '/v1/webhook-endpoints');
    expect(notGranted.status).toBe(403);
    expect(await notGranted.json()).toMatchObject({ code: 'scope_missing' });
    // a role that forbids a held scope is refused at each call (test/oauth/assistant-authorization.e2e-spec.ts)

    const revoked = await (await consoleAs(admin))('POST', `/console/connected-apps/${app.client_id}/revoke`);
    expect(revoked.json()).toMatchObject({ status: 'denied', connections: [] });
    for (const gone of [token, adminTokens!.access_token]) {
      const res = await v1(gone, '/v1/visits');
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    // the refresh token is gone too
    const refresh = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens!.refresh_token!,
      insecure,
    );
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a denied app: its connections end, and a person asking for it is sent back with access_denied', async () => {
    const app = await registerApp(t, admin, 'public', redirectUri);
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const { tokens } = await tokenFor(admin, client, { scope: 'visits:read', mode: 'test' });
    expect((await v1(tokens!.access_token, '/v1/visits')).status).toBe(200);
    // the console shows when it was last used (to the minute)
    const console = await consoleAs(admin);
    const lastUsed = await until(async () => {
      const listed = (await console('GET', '/console/connected-apps')).json() as {
        client_id: string;
        connections: { last_used_at: string | null }[];
      }[];
      return listed.find((a) => a.client_id === app.client_id)?.connections[0]?.last_used_at ?? undefined;
    });
    expect(Math.abs(Date.parse(lastUsed) - Date.now())).toBeLessThan(120_000);
    const denied = await console('POST', `/console/connected-apps/${app.client_id}/deny`);
    expect(denied.json()).toMatchObject({ status: 'denied', connections: [] });
    expect((await v1(tokens!.access_token, '/v1/visits')).status).toBe(401);

    const browser = new FormBrowser();
    const stopped = await tokenFor(member, client, { scope: 'visits:read', mode: 'test', browser });
    expect(stopped.page).toContain('This app is not allowed');
    const abort = /action="([^"]*\/abort)"/.exec(stopped.page)![1];
    const csrf = /name="_csrf" value="([^"]*)"/.exec(stopped.page)![1];
    const back = await browser.go(new URL(abort, t.baseUrl).toString(), { form: { _csrf: csrf } });
    const resume = await browser.go(back.location!);
    const callback = new URL(resume.location!);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('s');
  });

  it('live and test tokens see only their own mode', async () => {
    const app = await registerApp(t, admin, 'public', redirectUri);
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const live = (await tokenFor(admin, client, { scope: 'sites:read', mode: 'live' })).tokens!;
    const test = (await tokenFor(admin, client, { scope: 'sites:read', mode: 'test' })).tokens!;
    const liveSites = (await (await v1(live.access_token, '/v1/sites')).json()) as { data: { id: string }[] };
    const testSites = (await (await v1(test.access_token, '/v1/sites')).json()) as { data: { id: string }[] };
    expect(liveSites.data.map((s) => s.id)).toEqual(org.sites.filter((s) => s.livemode).map((s) => s.id));
    expect(testSites.data.map((s) => s.id)).toEqual(org.sites.filter((s) => !s.livemode).map((s) => s.id));
  });

  it("a visit's watchlist flag reaches a connected app only when its token holds watchlist:read", async () => {
    const key = await org.key();
    const site = org.sites.find((x) => !x.livemode)!.id;
    const host = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Watch Host', email: `watch.host.${org.id.slice(4, 12).toLowerCase()}@host.test` },
    });
    const entry = await call(t.app, 'POST', '/v1/watchlist-entries', {
      key,
      body: { name: 'Kwabena Watched Ofori', reason: 'Banned after an incident', severity: 'high' },
    });
    expect(entry.statusCode).toBe(201);
    const visit = await call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: host.json().id,
        type: 'meeting',
        visitor: { name: 'Kwabena Watched Ofori', phone: '+233244000111' },
      },
    });
    expect(visit.json().watchlist.flagged).toBe(true);
    const path = `/v1/visits/${visit.json().id}`;

    const app = await registerApp(t, admin, 'public', redirectUri, 'Watch reader');
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const without = (await tokenFor(admin, client, { scope: 'visits:read', mode: 'test' })).tokens!;
    const plain = (await (await v1(without.access_token, path)).json()) as Record<string, unknown>;
    expect(plain.id).toBe(visit.json().id);
    expect('watchlist' in plain).toBe(false);
    const listed = (await (await v1(without.access_token, '/v1/visits')).json()) as { data: object[] };
    expect(listed.data.some((v) => 'watchlist' in v)).toBe(false);
    expect((await v1(without.access_token, '/v1/watchlist-entries')).status).toBe(403);

    const scoped = (await tokenFor(admin, client, { scope: 'visits:read watchlist:read', mode: 'test' }))
      .tokens!;
    const flagged = (await (await v1(scoped.access_token, path)).json()) as {
      watchlist: { flagged: boolean };
    };
    expect(flagged.watchlist.flagged).toBe(true);
  });

  it('every /v1 401 names the protected-resource metadata, which names the server and the scopes', async () => {
    const none = await fetch(`${t.baseUrl}/v1/visits`);
    expect(none.status).toBe(401);
    const challenge = none.headers.get('www-authenticate')!;
    expect(challenge).toBe(
      `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/v1", scope="visits:read"`,
    );
    const bad = await v1('svc_at_nonsense', '/v1/visits');
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const meta = (await (await fetch(/resource_metadata="([^"]*)"/.exec(challenge)![1])).json()) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({
      resource: `${t.baseUrl}/v1`,
      authorization_servers: [t.baseUrl],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
    });
    // the root of the origin is no protected resource
    expect((await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it("a token's calls count against the organisation's allowance, shared with its keys", async () => {
    const app = await registerApp(t, admin, 'public', redirectUri);
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const { tokens } = await tokenFor(admin, client, { scope: 'sites:read', mode: 'test' });
    const key = await org.key({ scopes: ['sites:read'] });
    const byKey = await v1(key, '/v1/sites');
    const byToken = await v1(tokens!.access_token, '/v1/sites');
    expect(byKey.headers.get('ratelimit-limit')).toBe('100');
    expect(byToken.headers.get('ratelimit-limit')).toBe('100');
    expect(Number(byToken.headers.get('ratelimit-remaining'))).toBe(
      Number(byKey.headers.get('ratelimit-remaining')) - 1,
    );
  });

  it('the OpenAPI document declares the OAuth scheme beside the API key, each operation with its scope', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, Record<string, unknown>> };
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: `${t.baseUrl}/oauth/authorize`,
          tokenUrl: `${t.baseUrl}/oauth/token`,
          scopes: expect.objectContaining({ 'visits:read': 'See visits' }),
        },
      },
    });
    expect(doc.paths['/visits'].get.security).toEqual([{ bearer: [] }, { oauth2: ['visits:read'] }]);
  });

  it('the docs have a "Connect an app" guide', async () => {
    const res = await fetch(`${t.baseUrl}/docs/connect-an-app`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Connect an app</h1>');
    expect(html).toContain(`${t.baseUrl}/oauth/token`);
  });

  it('an admin registers an app on the console page; the secret is shown once', async () => {
    const browser = new FormBrowser();
    const csrfOf = (html: string) => /name="_csrf" value="([^"]*)"/.exec(html)![1];
    const signIn = await browser.go(`${t.baseUrl}/console/sign-in?next=/console/apps/new`);
    const signedIn = await browser.go(`${t.baseUrl}/console/sign-in`, {
      form: { _csrf: csrfOf(signIn.text), next: '/console/apps/new', email: admin.email, password: PASSWORD },
    });
    expect(signedIn.status).toBe(303);
    // the session cookie is Path=/console: this form browser sends every cookie it holds
    const form = await browser.go(signedIn.location!);
    expect(form.text).toContain('Register an app');
    const wrong = await browser.go(`${t.baseUrl}/console/apps/new`, {
      form: {
        _csrf: csrfOf(form.text),
        name: 'Kiosk sync',
        redirect_uris: 'http://kiosk.example.com/cb',
        type: 'confidential',
      },
    });
    expect(wrong.text).toContain('redirect_uris: must use https');
    const done = await browser.go(`${t.baseUrl}/console/apps/new`, {
      form: {
        _csrf: csrfOf(wrong.text),
        name: 'Kiosk sync',
        redirect_uris: 'https://kiosk.example.com/cb\nhttp://localhost:8080/cb',
        type: 'confidential',
      },
    });
    expect(done.status).toBe(200);
    const clientId = /<code>(app_[^<]+)<\/code>/.exec(done.text)![1];
    expect(done.text).toMatch(/<code>svc_cs_[^<]+<\/code>/);
    const listed = (await (await consoleAs(admin))('GET', '/console/oauth-apps')).json() as {
      client_id: string;
      redirect_uris: string[];
    }[];
    expect(listed.find((a) => a.client_id === clientId)?.redirect_uris).toEqual([
      'https://kiosk.example.com/cb',
      'http://localhost:8080/cb',
    ]);
  });

  it('only Owners and Admins of Pro or Enterprise organisations register apps', async () => {
    const memberConsole = await consoleAs(member);
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/oauth-apps',
      headers: { cookie: '' },
      payload: { name: 'x', redirect_uris: [redirectUri], type: 'public' },
    });
    expect(res.statusCode).toBe(401);
    expect((await memberConsole('GET', '/console/oauth-apps')).statusCode).toBe(403);
    const growth = await createOrg(t.app, 'growth');
    const growthOwner = await createPerson(t, growth, 'owner');
    await expect(registerApp(t, growthOwner, 'public', redirectUri)).rejects.toMatchObject({
      code: 'plan_required',
    });
    await expect(registerApp(t, admin, 'public', 'http://app.example.com/cb')).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});
