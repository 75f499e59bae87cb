import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import type { TestApp } from '../harness';
import { McpProbeModule } from '../fixtures/mcp-probe.module';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  FormBrowser,
  insecure,
  pkce,
  publicClientToken,
  registerApp,
  v1Get,
} from '../support/oauth-fixtures';
import type { TestOrg } from '../support/platform-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { DEFAULT_SCOPES, SCOPES } from '../../src/visitor/platform/scopes';
import { isDestructive } from '../../src/visitor/platform/scope-words';

/**
 * The authorization server an AI assistant needs, driven by a real OAuth client library (oauth4webapi) over HTTP:
 * registration with `scope`, tokens bound to one resource (/v1 or /mcp, RFC 8707), the protected-resource
 * documents, Bearer challenges, CORS for browser-based clients, API keys at /mcp, the default scope and the consent
 * page's role filter and destructive scopes. /mcp is the tool server's credential step as a probe
 * (test/fixtures/mcp-probe.module.ts), so these hold whatever the tool server does after it.
 */
describe('the authorization server an assistant needs', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let admin: AccountRow;
  let member: AccountRow;
  let as: oauth.AuthorizationServer;
  const redirectUri = 'https://assistant.example.com/callback';
  const origin = 'https://assistant.example.com';
  let mcpResource: string;
  let v1Resource: string;

  beforeAll(async () => {
    t = await bootOAuthApp({}, [McpProbeModule]);
    org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    member = await createPerson(t, org, 'member');
    as = await discover(t.baseUrl);
    mcpResource = `${t.baseUrl}/mcp`;
    v1Resource = `${t.baseUrl}/v1`;
  });
  afterAll(() => t.close());

  /** The tool server's credential step (the probe): what the credential may do, or the refusal. */
  const mcp = (token: string | null, needs: string[] = [], headers: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}/mcp/__auth-probe`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify({ needs }),
    });

  async function connect(
    person: AccountRow,
    client: oauth.Client,
    o: { scope: string; resource?: string; asShown?: boolean; untick?: string[] },
  ) {
    const tokens = await publicClientToken(t.baseUrl, as, {
      person,
      clientId: client.client_id,
      redirectUri,
      mode: 'test',
      ...o,
    });
    return { tokens };
  }

  async function publicApp(name = 'Assistant') {
    const app = await registerApp(t, admin, 'public', redirectUri, name);
    return { client_id: app.client_id, token_endpoint_auth_method: 'none' } as oauth.Client;
  }

  /** The consent page a person sees for this request (signed in, the app already approved or they approve). */
  async function consentPage(person: AccountRow, clientId: string, scope: string) {
    const { challenge } = await pkce();
    const browser = new FormBrowser();
    // sign in, then stop before the consent is posted: the page is the step the browser stopped on
    const done = await authorize(
      t.baseUrl,
      {
        person,
        clientId,
        redirectUri,
        scope,
        codeChallenge: challenge,
        decision: 'deny',
        mode: 'test',
      },
      browser,
    );
    // the deny ended the request; read the page again from a fresh request to see the form itself
    expect(done.callback?.searchParams.get('error')).toBe('access_denied');
    const url = new URL('/oauth/authorize', t.baseUrl);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      ...(scope ? { scope } : {}),
      state: 'look',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    let step = await browser.go(url.toString());
    while (step.location && !step.location.startsWith(redirectUri)) step = await browser.go(step.location);
    return step.text;
  }

  const boxes = (page: string) =>
    [...page.matchAll(/name="scope:([^"]+)"( checked)?/g)].map((m) => ({ scope: m[1], checked: !!m[2] }));

  describe('1. registration with scope', () => {
    it('dynamic registration accepts supported scopes (returned as registered) and refuses any other by name', async () => {
      const ok = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(
          as,
          {
            redirect_uris: [redirectUri],
            client_name: 'Assistant',
            token_endpoint_auth_method: 'none',
            scope: 'visits:read sites:read visits:read',
          },
          insecure,
        ),
      );
      expect(ok.scope).toBe('visits:read sites:read');
      expect(Object.keys(ok).some((k) => k.startsWith('urn:'))).toBe(false);
      // the client works, and its registered scope comes back when it is read again
      const { tokens } = await connect(admin, ok, { scope: 'visits:read' });
      expect(tokens!.scope).toBe('visits:read');

      for (const [scope, named] of [
        ['visits:read openid', 'openid'],
        ['visits:read everything:admin custom:front_desk', 'everything:admin, custom:front_desk'],
      ]) {
        const refused = await oauth.dynamicClientRegistrationRequest(
          as,
          { redirect_uris: [redirectUri], client_name: 'Greedy', token_endpoint_auth_method: 'none', scope },
          insecure,
        );
        expect(refused.status).toBe(400);
        const body = (await refused.json()) as { error: string; error_description: string };
        expect(body.error).toBe('invalid_client_metadata');
        expect(body.error_description).toContain(`scope ${named}`);
      }
      const notString = await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [redirectUri], scope: ['visits:read'] as unknown as string },
        insecure,
      );
      expect(await notString.json()).toMatchObject({ error: 'invalid_client_metadata' });
    });
  });

  describe('2. resource binding (RFC 8707)', () => {
    it('a token for /mcp works at /mcp and is 401 at /v1; a /v1 token is 401 at /mcp', async () => {
      const client = await publicApp();
      const forMcp = (
        await connect(admin, client, { scope: 'visits:read sites:read', resource: mcpResource })
      ).tokens!;
      const atMcp = await mcp(forMcp.access_token, ['visits:read']);
      expect(atMcp.status).toBe(200);
      expect(await atMcp.json()).toMatchObject({
        kind: 'oauth_token',
        scopes: ['sites:read', 'visits:read'],
      });
      const atV1 = await v1Get(t, forMcp.access_token, '/v1/visits');
      expect(atV1.status).toBe(401);
      expect(atV1.headers.get('www-authenticate')).toContain('error="invalid_token"');

      const forV1 = (await connect(admin, client, { scope: 'visits:read', resource: v1Resource })).tokens!;
      expect((await v1Get(t, forV1.access_token, '/v1/visits')).status).toBe(200);
      const v1AtMcp = await mcp(forV1.access_token);
      expect(v1AtMcp.status).toBe(401);
      expect(v1AtMcp.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPES.join(' ')}", error="invalid_token"`,
      );
      // no resource named: /v1, as before
      const plain = (await connect(admin, client, { scope: 'visits:read' })).tokens!;
      expect((await v1Get(t, plain.access_token, '/v1/visits')).status).toBe(200);
      expect((await mcp(plain.access_token)).status).toBe(401);

      // a refreshed /mcp token is still for /mcp only
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, oauth.None(), forMcp.refresh_token!, {
          ...insecure,
          additionalParameters: { resource: mcpResource },
        }),
      );
      expect((await mcp(refreshed.access_token)).status).toBe(200);
      expect((await v1Get(t, refreshed.access_token, '/v1/visits')).status).toBe(401);
    });

    it('any other resource is invalid_target', async () => {
      const client = await publicApp();
      for (const resource of [`${t.baseUrl}/`, `${t.baseUrl}/public/mcp`, 'https://api.example.com/mcp']) {
        const done = await authorize(t.baseUrl, {
          clientId: client.client_id,
          redirectUri,
          scope: 'visits:read',
          extra: { resource },
        });
        expect(done.callback?.searchParams.get('error')).toBe('invalid_target');
      }
    });
  });

  describe('3. protected-resource metadata', () => {
    it('serves /mcp and /v1 documents, each naming its resource; the root is 404', async () => {
      for (const [path, resource] of [
        ['mcp', mcpResource],
        ['v1', v1Resource],
      ]) {
        const res = await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource/${path}`, {
          headers: { origin },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(await res.json()).toMatchObject({
          resource,
          authorization_servers: [t.baseUrl],
          scopes_supported: [...SCOPES],
          bearer_methods_supported: ['header'],
        });
      }
      expect((await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(404);
      expect((await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource/elsewhere`)).status).toBe(404);
    });
  });

  describe('4. challenges', () => {
    it('a 401 names the metadata and the scope the call needs; a missing scope is insufficient_scope naming them all', async () => {
      const none = await fetch(`${t.baseUrl}/v1/visits`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/v1", scope="visits:read"`,
      );
      const noneAtMcp = await mcp(null);
      expect(noneAtMcp.status).toBe(401);
      expect(noneAtMcp.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPES.join(' ')}"`,
      );

      const client = await publicApp();
      const token = (await connect(admin, client, { scope: 'visits:read' })).tokens!.access_token;
      const people = await v1Get(t, token, '/v1/people');
      expect(people.status).toBe(403);
      expect(await people.json()).toMatchObject({ code: 'scope_missing' });
      expect(people.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="people:read", resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/v1"`,
      );
      const mcpToken = (await connect(admin, client, { scope: 'visits:read', resource: mcpResource })).tokens!
        .access_token;
      const tool = await mcp(mcpToken, ['visits:read', 'visits:write', 'sites:read']);
      expect(tool.status).toBe(403);
      expect(await tool.json()).toMatchObject({ code: 'scope_missing' });
      expect(tool.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="visits:read visits:write sites:read", resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
    });
  });

  describe('5. CORS for browser-based clients', () => {
    it('metadata, registration (preflight too), token; 401/403 of /v1 and /mcp expose WWW-Authenticate', async () => {
      const asMeta = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`, {
        headers: { origin },
      });
      expect(asMeta.headers.get('access-control-allow-origin')).toBe(origin);
      const prmPreflight = await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'mcp-protocol-version',
        },
      });
      expect(prmPreflight.status).toBe(204);
      expect(prmPreflight.headers.get('access-control-allow-origin')).toBe('*');

      const preflight = await fetch(`${t.baseUrl}/oauth/register`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const registered = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          redirect_uris: [redirectUri],
          client_name: 'Browser assistant',
          token_endpoint_auth_method: 'none',
        },
        { ...insecure, headers: new Headers({ origin }) },
      );
      expect(registered.headers.get('access-control-allow-origin')).toBe('*');
      const client = await oauth.processDynamicClientRegistrationResponse(registered);

      // the token endpoint, from the origin of the client's redirect URI
      const { verifier, challenge } = await pkce();
      const done = await authorize(t.baseUrl, {
        person: admin,
        clientId: client.client_id,
        redirectUri,
        scope: 'visits:read',
        state: 'c',
        codeChallenge: challenge,
        mode: 'test',
      });
      const params = oauth.validateAuthResponse(as, client, done.callback!, 'c');
      const tokenRes = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirectUri,
        verifier,
        {
          ...insecure,
          headers: new Headers({ origin }),
        },
      );
      expect(tokenRes.headers.get('access-control-allow-origin')).toBe(origin);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenRes);
      const tokenPreflight = await fetch(as.token_endpoint!, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(tokenPreflight.status).toBe(204);

      for (const res of [
        await fetch(`${t.baseUrl}/v1/visits`, { headers: { origin } }),
        await mcp(null, [], { origin }),
        await fetch(`${t.baseUrl}/v1/people`, {
          headers: { origin, authorization: `Bearer ${tokens.access_token}` },
        }),
      ]) {
        expect([401, 403]).toContain(res.status);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    });
  });

  describe('6. API keys at /mcp', () => {
    it("an organisation's secret key works at /mcp (its scopes apply); a publishable key is refused", async () => {
      const secret = await org.key({ scopes: ['visits:read', 'sites:read'] });
      const ok = await mcp(secret, ['visits:read']);
      expect(ok.status).toBe(200);
      // counted against the organisation's allowance, shared with /v1
      expect(ok.headers.get('ratelimit-limit')).toBe('100');
      expect(await ok.json()).toMatchObject({
        kind: 'api_key',
        livemode: false,
        scopes: ['sites:read', 'visits:read'],
      });
      const lacking = await mcp(secret, ['people:read']);
      expect(lacking.status).toBe(403);
      expect(await lacking.json()).toMatchObject({ code: 'scope_missing' });

      const publishable = await org.key({ kind: 'publishable' });
      const refused = await mcp(publishable);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'forbidden' });
      // the same key still works where /v1 allows publishable keys
      const forms = await fetch(`${t.baseUrl}/v1/visit-types`, {
        headers: { authorization: `Bearer ${publishable}` },
      });
      expect(forms.status).toBe(200);
    });
  });

  describe('7. default scope and the consent page', () => {
    it('a request with no scope is offered the default read set, never every scope', async () => {
      const client = await publicApp();
      const page = await consentPage(admin, client.client_id!, '');
      expect(boxes(page).map((b) => b.scope)).toEqual([...DEFAULT_SCOPES]);
      const { tokens } = await connect(admin, client, { scope: '' });
      expect(tokens!.scope!.split(' ').sort()).toEqual([...DEFAULT_SCOPES].sort());
      const forMcp = (await connect(admin, client, { scope: '', resource: mcpResource })).tokens!;
      expect(forMcp.scope!.split(' ').sort()).toEqual([...DEFAULT_SCOPES].sort());
    });

    it('destructive scopes are listed but not ticked; the token holds only what was ticked', async () => {
      const client = await publicApp();
      const page = await consentPage(admin, client.client_id!, SCOPES.join(' '));
      const shown = boxes(page);
      expect(shown.map((b) => b.scope)).toEqual([...SCOPES]);
      for (const b of shown) expect(b.checked).toBe(!isDestructive(b.scope as (typeof SCOPES)[number]));
      expect(shown.find((b) => b.scope === 'visitors:delete')?.checked).toBe(false);
      expect(shown.find((b) => b.scope === 'watchlist:write')?.checked).toBe(false);

      const asShown = (await connect(admin, client, { scope: SCOPES.join(' '), asShown: true })).tokens!;
      const held = asShown.scope!.split(' ');
      expect(held.sort()).toEqual(SCOPES.filter((s) => !isDestructive(s)).sort());
      const erase = await fetch(`${t.baseUrl}/v1/visitors/vis_nope`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${asShown.access_token}` },
      });
      expect(erase.status).toBe(403);
      expect(await erase.json()).toMatchObject({ code: 'scope_missing' });
      // ticked on purpose, it is granted
      const ticked = (await connect(admin, client, { scope: 'visits:read visitors:delete' })).tokens!;
      expect(ticked.scope).toBe('visits:read visitors:delete');
    });

    it("a member's consent lists and grants only what the role allows", async () => {
      const client = await publicApp('Member assistant');
      // the admin's connection approves the app for the organisation
      expect((await connect(admin, client, { scope: 'visits:read' })).tokens).not.toBeNull();
      const asked = 'visits:read visits:write webhooks:manage visitors:delete people:write audit:read';
      const page = await consentPage(member, client.client_id!, asked);
      expect(boxes(page).map((b) => b.scope)).toEqual(['visits:read', 'visits:write']);
      // the token holds only what was shown and ticked
      const { tokens } = await connect(member, client, { scope: asked });
      expect(tokens!.scope).toBe('visits:read visits:write');
      const hooks = await v1Get(t, tokens!.access_token, '/v1/webhook-endpoints');
      expect(hooks.status).toBe(403);
      expect(await hooks.json()).toMatchObject({ code: 'scope_missing' });

      // nothing the role allows: the page says so and offers Deny only
      const nothing = await consentPage(member, client.client_id!, 'webhooks:manage audit:read');
      expect(boxes(nothing)).toEqual([]);
      expect(nothing).toContain('Your role allows none of what this app asks for');

      // a role lowered after consent still limits the token at each call
      const adminToken = (await connect(admin, client, { scope: 'visits:read webhooks:manage' })).tokens!;
      await t.app
        .get(DataSource)
        .query(`UPDATE visitor.console_account SET role = 'member' WHERE id = $1`, [admin.id]);
      try {
        const byRole = await v1Get(t, adminToken.access_token, '/v1/webhook-endpoints');
        expect(byRole.status).toBe(403);
        expect(await byRole.json()).toMatchObject({ code: 'forbidden' });
        expect(byRole.headers.get('www-authenticate')).toBeNull();
      } finally {
        await t.app
          .get(DataSource)
          .query(`UPDATE visitor.console_account SET role = 'admin' WHERE id = $1`, [admin.id]);
      }
    });
  });
});
