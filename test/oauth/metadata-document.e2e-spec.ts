import * as oauth from 'oauth4webapi';
import type { TestApp } from '../harness';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  insecure,
  metadataDocumentHost,
  pkce,
  publicClientToken,
} from '../support/oauth-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { metadataDocumentFetch } from '../../src/oauth/clients/metadata-document-fetch';

/**
 * Client ID Metadata Documents served by a local HTTPS server (a self-signed certificate made with openssl; the
 * app runs with OAUTH_ALLOW_LOCAL_METADATA, which allows loopback hosts and skips their certificate check):
 * a matching document connects, a mismatching `client_id`, a document over the size limit and an unlisted
 * redirect URI are refused; fetched documents are cached.
 */
describe('Client ID Metadata Documents', () => {
  let t: TestApp & { baseUrl: string };
  let host: Awaited<ReturnType<typeof metadataDocumentHost>>;
  let origin: string;
  let admin: AccountRow;
  let as: oauth.AuthorizationServer;
  const redirectUri = 'http://localhost:7777/callback';

  beforeAll(async () => {
    host = await metadataDocumentHost(
      (self, at) => ({
        // no token_endpoint_auth_method: a public client
        '/assistant.json': {
          client_id: self,
          client_name: 'Local Assistant',
          redirect_uris: [redirectUri],
        },
        '/mismatch.json': {
          client_id: `${at}/someone-else.json`,
          client_name: 'Impostor',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
        },
        // a scope of supported scopes is accepted; any other scope, and a document without client_name, refused
        '/scoped.json': {
          client_id: self,
          client_name: 'Scoped Assistant',
          redirect_uris: [redirectUri],
          scope: 'visits:read sites:read',
        },
        '/bad-scope.json': {
          client_id: self,
          client_name: 'Greedy Assistant',
          redirect_uris: [redirectUri],
          scope: 'visits:read offline_access',
        },
        '/nameless.json': { client_id: self, redirect_uris: [redirectUri] },
        '/blank-name.json': { client_id: self, client_name: ' ', redirect_uris: [redirectUri] },
        '/big.json': {
          client_id: self,
          client_name: 'Big',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
          padding: 'x'.repeat(6000),
        },
      }),
      ['/silent.json'],
    );
    origin = host.origin;
    t = await bootOAuthApp();
    const org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    as = await discover(t.baseUrl);
  });
  afterAll(async () => {
    await t.close();
    await host.close();
  });

  it('a matching document connects the app (shown with its document URL), fetched once and cached', async () => {
    const clientId = `${origin}/assistant.json`;
    const client = { client_id: clientId, token_endpoint_auth_method: 'none' };
    for (let round = 0; round < 2; round++) {
      const { verifier, challenge } = await pkce();
      const done = await authorize(t.baseUrl, {
        person: admin,
        clientId,
        redirectUri,
        scope: 'visits:read',
        state: 'cimd',
        codeChallenge: challenge,
      });
      expect(done.callback).not.toBeNull();
      const params = oauth.validateAuthResponse(as, client, done.callback!, 'cimd');
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
      const res = await fetch(`${t.baseUrl}/v1/visits`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(res.status).toBe(200);
    }
    expect(host.hits.get('/assistant.json')).toBe(1);
  });

  it('a document with a scope of supported scopes connects; the token holds what was asked and granted', async () => {
    const tokens = await publicClientToken(t.baseUrl, as, {
      person: admin,
      clientId: `${origin}/scoped.json`,
      redirectUri,
      scope: 'visits:read',
      mode: 'test',
    });
    expect(tokens.scope).toBe('visits:read');
  });

  it.each([
    [
      'a scope this server does not support, named',
      '/bad-scope.json',
      'scope offline_access is not supported',
    ],
    ['no client_name', '/nameless.json', 'client_name is required in a client ID metadata document'],
    ['a blank client_name', '/blank-name.json', 'client_name is required in a client ID metadata document'],
  ])('refuses a document with %s (invalid_client_metadata, no redirect)', async (_what, path, says) => {
    const { challenge } = await pkce();
    const done = await authorize(t.baseUrl, {
      person: admin,
      clientId: `${origin}${path}`,
      redirectUri,
      scope: 'visits:read',
      codeChallenge: challenge,
    });
    expect(done.callback).toBeNull();
    expect(done.status).toBe(400);
    expect(done.page).toContain('invalid_client_metadata');
    expect(done.page).toContain(says);
  });

  it('the authorization page names the app and its document URL', async () => {
    const { challenge } = await pkce();
    const stopped = await authorize(t.baseUrl, {
      clientId: `${origin}/assistant.json`,
      redirectUri,
      scope: 'visits:read',
      codeChallenge: challenge,
    });
    expect(stopped.page).toContain('Local Assistant');
    expect(stopped.page).toContain(`Metadata document at ${origin}/assistant.json`);
  });

  it.each([
    ['a client_id that is not the URL', '/mismatch.json', redirectUri],
    ['a document over the size limit', '/big.json', redirectUri],
    ['a redirect URI the document does not list', '/assistant.json', 'http://localhost:7777/elsewhere'],
  ])('refuses %s without redirecting', async (_what, path, redirect) => {
    const { challenge } = await pkce();
    const done = await authorize(t.baseUrl, {
      person: admin,
      clientId: `${origin}${path}`,
      redirectUri: redirect,
      scope: 'visits:read',
      codeChallenge: challenge,
    });
    expect(done.callback).toBeNull();
    expect(done.status).toBe(400);
  });

  it('the outbound-address rule: without the development allowance a loopback host is refused', async () => {
    const strict = metadataDocumentFetch({ allowLoopback: false, timeoutMs: 2000, maxBytes: 5120 });
    await expect(strict(`${origin}/assistant.json`)).rejects.toThrow(/non-public address/);
  });

  it('a host that does not answer within the time limit is given up on (no document, no app)', async () => {
    const fetchDoc = metadataDocumentFetch({ allowLoopback: true, timeoutMs: 300, maxBytes: 5120 });
    await expect(fetchDoc(`${origin}/silent.json`)).rejects.toThrow();
    expect(host.hits.get('/silent.json')).toBe(1);
  });
});
