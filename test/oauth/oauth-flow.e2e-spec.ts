import * as oauth from 'oauth4webapi';
import type { TestApp } from '../harness';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  insecure,
  pkce,
  registerApp,
  v1Get,
} from '../support/oauth-fixtures';
import type { TestOrg } from '../support/platform-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { SCOPES } from '../../src/visitor/platform/scopes';

/**
 * The authorization server driven by a real OAuth client library (oauth4webapi) against the real app on a port:
 * discovery, PKCE, code exchange (confidential with HTTP Basic, public with client_id in the form), single-use
 * codes, refresh rotation and reuse detection, revocation, narrowed scope, access_denied, registration rules.
 */
describe('OAuth 2.1 authorization server (oauth4webapi)', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let owner: AccountRow;
  let as: oauth.AuthorizationServer;
  const redirectUri = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    t = await bootOAuthApp();
    org = await createOrg(t.app, 'pro');
    owner = await createPerson(t, org, 'owner');
    as = await discover(t.baseUrl);
  });
  afterAll(() => t.close());

  const v1 = (token: string, path = '/v1/organisation') => v1Get(t, token, path);

  async function connect(
    client: oauth.Client,
    auth: oauth.ClientAuth,
    o: { scope?: string; untick?: string[]; state?: string } = {},
  ) {
    const { verifier, challenge } = await pkce();
    const state = o.state ?? oauth.generateRandomState();
    const done = await authorize(t.baseUrl, {
      person: owner,
      clientId: client.client_id,
      redirectUri,
      scope: o.scope ?? 'organisation:read visits:read',
      state,
      codeChallenge: challenge,
      untick: o.untick,
    });
    expect(done.callback).not.toBeNull();
    const params = oauth.validateAuthResponse(as, client, done.callback!, state);
    const exchange = () =>
      oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange());
    return { tokens, exchange };
  }

  it('publishes RFC 8414 metadata with only what the server does; discovery validates the issuer', async () => {
    expect(as.issuer).toBe(t.baseUrl);
    expect(as.authorization_endpoint).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(as.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
    expect(as.registration_endpoint).toBe(`${t.baseUrl}/oauth/register`);
    expect(as.revocation_endpoint).toBe(`${t.baseUrl}/oauth/revoke`);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'none']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.scopes_supported).toEqual([...SCOPES]);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.client_id_metadata_document_supported).toBe(true);
    for (const openIdOnly of [
      'jwks_uri',
      'userinfo_endpoint',
      'id_token_signing_alg_values_supported',
      'claims_supported',
      'subject_types_supported',
      'claims_parameter_supported',
    ])
      expect(as).not.toHaveProperty(openIdOnly);
    // a client expecting a different issuer refuses the document
    const other = new URL('http://localhost:1/');
    await expect(
      oauth.processDiscoveryResponse(
        other,
        await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`),
      ),
    ).rejects.toThrow();
  });

  it('confidential client: code + PKCE S256, HTTP Basic, Bearer token for /v1, refresh token; a code works once', async () => {
    const app = await registerApp(t, owner, 'confidential', redirectUri);
    const client = { client_id: app.client_id };
    const { tokens, exchange } = await connect(client, oauth.ClientSecretBasic(app.client_secret!));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^svc_at_/);
    expect(tokens.refresh_token).toMatch(/^svc_rt_/);
    expect(tokens).not.toHaveProperty('id_token');
    expect(tokens.scope).toBe('organisation:read visits:read');
    expect((await v1(tokens.access_token)).status).toBe(200);

    const again = await exchange();
    await expect(oauth.processAuthorizationCodeResponse(as, client, again)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // a wrong secret is refused in the OAuth format
    const wrong = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.client_id}:nope`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=refresh_token&refresh_token=x',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    // even a wrong method gets an OAuth error, never problem details
    const get = await fetch(as.token_endpoint!);
    expect(get.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await get.json()).toHaveProperty('error');
  });

  it('public client: client_id in the form, PKCE only; the granted scope may be narrower and says so', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    expect(app.client_secret).toBeNull();
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const { tokens } = await connect(client, oauth.None(), {
      scope: 'organisation:read people:read',
      untick: ['people:read'],
    });
    expect(tokens.scope).toBe('organisation:read');
    expect((await v1(tokens.access_token)).status).toBe(200);
    const people = await v1(tokens.access_token, '/v1/people');
    expect(people.status).toBe(403);
    expect(await people.json()).toMatchObject({ code: 'scope_missing' });
  });

  it('refuses an authorization request without a code challenge or with plain', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    const missing = await authorize(t.baseUrl, {
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      state: 's-missing',
      codeChallenge: null,
    });
    expect(missing.callback?.searchParams.get('error')).toBe('invalid_request');
    expect(missing.callback?.searchParams.get('state')).toBe('s-missing');
    const plain = await authorize(t.baseUrl, {
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      codeChallenge: 'a'.repeat(43),
      method: 'plain',
    });
    expect(plain.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('RFC 8707: tokens are for the /v1 resource only; another resource is refused', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    const elsewhere = await authorize(t.baseUrl, {
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      state: 'r',
      extra: { resource: 'https://api.example.com/' },
    });
    expect(elsewhere.callback?.searchParams.get('error')).toBe('invalid_target');
    // naming /v1 explicitly works, and the token's audience is checked at /v1
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const { verifier, challenge } = await pkce();
    const done = await authorize(t.baseUrl, {
      person: owner,
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      state: 'r2',
      codeChallenge: challenge,
      extra: { resource: `${t.baseUrl}/v1` },
    });
    const params = oauth.validateAuthResponse(as, client, done.callback!, 'r2');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirectUri,
        verifier,
        insecure,
      ),
    );
    expect((await v1(tokens.access_token, '/v1/visits')).status).toBe(200);
  });

  it('implicit and password grants are unsupported; an unregistered redirect URI never redirects', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    const implicit = await authorize(t.baseUrl, {
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      extra: { response_type: 'token' },
    });
    // an implicit request's error goes in the fragment, as that response type would
    expect(new URLSearchParams(implicit.callback?.hash.slice(1)).get('error')).toBe(
      'unsupported_response_type',
    );
    const password = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=password&username=a&password=b&client_id=${app.client_id}`,
    });
    expect(password.status).toBe(400);
    expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const elsewhere = await authorize(t.baseUrl, {
      clientId: app.client_id,
      redirectUri: 'http://127.0.0.1:9/other',
      scope: 'visits:read',
    });
    expect(elsewhere.callback).toBeNull();
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.page).toContain('redirect_uri');
  });

  it('refresh rotates the refresh token; reusing a rotated one revokes the whole grant', async () => {
    const app = await registerApp(t, owner, 'confidential', redirectUri);
    const client = { client_id: app.client_id };
    const auth = oauth.ClientSecretBasic(app.client_secret!);
    const { tokens } = await connect(client, auth);
    const refresh = async (rt: string) =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, rt, insecure),
      );
    const second = await refresh(tokens.refresh_token!);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect((await v1(second.access_token)).status).toBe(200);

    await expect(refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // every token of the grant stops working at once, the newest included
    const after = await v1(second.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(refresh(second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('RFC 7009: revoking the refresh token revokes the access tokens issued from it', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    const client = { client_id: app.client_id, token_endpoint_auth_method: 'none' };
    const { tokens } = await connect(client, oauth.None());
    expect((await v1(tokens.access_token)).status).toBe(200);
    const res = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await oauth.processRevocationResponse(res);
    expect((await v1(tokens.access_token)).status).toBe(401);
  });

  it('denial sends access_denied with the state to the redirect URI', async () => {
    const app = await registerApp(t, owner, 'public', redirectUri);
    const done = await authorize(t.baseUrl, {
      person: owner,
      clientId: app.client_id,
      redirectUri,
      scope: 'visits:read',
      state: 'keep-me',
      decision: 'deny',
    });
    expect(done.callback?.searchParams.get('error')).toBe('access_denied');
    expect(done.callback?.searchParams.get('state')).toBe('keep-me');
    expect(done.callback?.searchParams.get('code')).toBeNull();
  });

  it('dynamic client registration: https and loopback http redirect URIs, any other http refused', async () => {
    const register = async (redirect_uris: string[]) =>
      oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris, client_name: 'Assistant', token_endpoint_auth_method: 'none' },
        insecure,
      );
    const refused = await register(['http://app.example.com/cb']);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const ok = await oauth.processDynamicClientRegistrationResponse(
      await register(['http://localhost:7777/cb', 'https://app.example.com/cb']),
    );
    expect(ok.client_id).toBeDefined();
    expect(ok).not.toHaveProperty('client_secret');
    const confidential = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [redirectUri] }, insecure),
    );
    expect(confidential.client_secret).toMatch(/^svc_cs_/);
    // the DCR client works end to end, its secret checked against the stored hash
    const client = { client_id: confidential.client_id };
    const { tokens } = await connect(client, oauth.ClientSecretBasic(confidential.client_secret as string));
    expect((await v1(tokens.access_token)).status).toBe(200);
  });
});
