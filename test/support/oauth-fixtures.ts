import type { Type } from '@nestjs/common';
import * as oauth from 'oauth4webapi';
import { bootTestApp, TestApp } from '../harness';
import { freePort } from './app-process';
import { Contract } from './openapi-contract';
import { authorize, AuthorizeOptions, FormBrowser, PASSWORD } from '../../bench/oauth-flow';
import { createOrg, TestOrg } from './platform-fixtures';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';
import type { Role } from '../../src/visitor/platform/scopes';
import { ClientsService } from '../../src/oauth/clients/clients.service';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The real app listening on 127.0.0.1 with BASE_URL (so the issuer) set to its own origin. */
export async function bootOAuthApp(
  env: Record<string, string> = {},
  extraModules: Type[] = [],
): Promise<TestApp & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await bootTestApp({
    extraModules,
    env: {
      RUN_WORKER: 'false',
      PORT: String(port),
      BASE_URL: baseUrl,
      OAUTH_ALLOW_LOCAL_METADATA: 'true',
      ...env,
    },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { ...t, baseUrl };
}

let people = 0;
export async function createPerson(t: TestApp, org: TestOrg, role: Role): Promise<AccountRow> {
  people += 1;
  return t.app.get(AccountsService).create(
    org.id,
    {
      email: `${role}.${people}.${org.id.slice(-6)}@people.test`,
      name: `${role} ${people}`,
      role,
      password: PASSWORD,
    },
    { type: 'operator', id: 'test' },
  );
}

export async function registerApp(
  t: TestApp,
  owner: AccountRow,
  type: 'confidential' | 'public',
  redirectUri: string,
  name = `App ${type}`,
): Promise<{ client_id: string; client_secret: string | null }> {
  return t.app.get(ClientsService).register(owner, { name, redirect_uris: [redirectUri], type });
}

export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(issuer, res);
}

const contracts = new WeakMap<object, Contract>();

/** A /v1 GET with a token over the network; every answer is checked against the served OpenAPI document. */
export async function v1Get(t: TestApp & { baseUrl: string }, token: string, path: string) {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  let contract = contracts.get(t.app);
  if (!contract) contracts.set(t.app, (contract = await Contract.fetch(t.app, '/v1/openapi.json')));
  contract.expectValid(
    {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers),
      body,
      json: () => JSON.parse(body) as unknown,
    },
    'GET',
    path,
  );
  return { status: res.status, headers: res.headers, json: async () => JSON.parse(body) as unknown };
}

export async function pkce() {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/**
 * An access token for a public client: the person signs in and consents on the authorization page, the code is
 * exchanged with PKCE. The app must already be approved for the organisation (e.g. an admin connected first).
 */
export async function publicClientToken(
  baseUrl: string,
  as: oauth.AuthorizationServer,
  o: {
    person: { email: string };
    clientId: string;
    redirectUri: string;
    scope: string;
    mode: 'live' | 'test';
    /** RFC 8707 resource, sent in the authorization and token requests (as MCP clients do). */
    resource?: string;
    asShown?: boolean;
    untick?: string[];
  },
): Promise<oauth.TokenEndpointResponse> {
  const client = { client_id: o.clientId, token_endpoint_auth_method: 'none' };
  const { verifier, challenge } = await pkce();
  const { resource, ...rest } = o;
  const done = await authorize(baseUrl, {
    ...rest,
    state: 's',
    codeChallenge: challenge,
    ...(resource ? { extra: { resource } } : {}),
  });
  if (!done.callback) throw new Error(`the authorization page stopped: ${done.page.slice(0, 200)}`);
  const params = oauth.validateAuthResponse(as, client, done.callback, 's');
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    o.redirectUri,
    verifier,
    {
      ...insecure,
      ...(resource ? { additionalParameters: { resource } } : {}),
    },
  );
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

export { authorize, createOrg, FormBrowser, PASSWORD };
export type { AuthorizeOptions };

/**
 * A local HTTPS host for Client ID Metadata Documents (a self-signed certificate made with openssl; the app must
 * run with OAUTH_ALLOW_LOCAL_METADATA, which allows loopback hosts and skips their certificate check). `docs` maps
 * a path to its document, given the document's own URL; `hits` counts requests per path; a path in `stall` is
 * accepted and never answered (until `close`).
 */
export async function metadataDocumentHost(
  docs: (self: string, origin: string) => Record<string, unknown>,
  stall: string[] = [],
): Promise<{ origin: string; hits: Map<string, number>; close(): Promise<void> }> {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const { createServer } = await import('node:https');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const hits = new Map<string, number>();
  const stalled: import('node:http').ServerResponse[] = [];
  let origin = '';
  const server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (stall.includes(path)) return void stalled.push(res);
      const doc = docs(`${origin}${path}`, origin)[path];
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
      res.end(JSON.stringify(doc ?? {}));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `https://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  return {
    origin,
    hits,
    close: () => {
      for (const res of stalled) res.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A local redirect URI (`url`, http://127.0.0.1:…/callback) for flows a real browser drives: every request it gets
 * is kept in `received`, and the browser is shown a page headed "Connected".
 */
export async function redirectHost(): Promise<{ url: string; received: URL[]; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const received: URL[] = [];
  let url = '';
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', url));
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>App</title><h1>Connected</h1>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/callback`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
