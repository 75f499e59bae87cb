import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  Gatehouse,
  GatehouseError,
  GatehouseErrorCode,
  isGatehouseError,
  OAuthRefreshError,
  OAuthTokens,
  parseRetryAfter,
  retryDelay,
  WebhookVerificationError,
} from '../../clients/typescript/src';
import type { TestApp } from '../harness';
import { freePort } from '../support/app-process';
import {
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  publicClientToken,
  registerApp,
} from '../support/oauth-fixtures';
import type { TestOrg } from '../support/platform-fixtures';
import { LOCAL_DELIVERY_ENV } from '../support/webhook-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { FaultProxy } from './fault-proxy';

const root = join(__dirname, '../..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every code of the client's GatehouseErrorCode type: the compiler rejects this object if the type gains or loses one. */
const CODES: Record<GatehouseErrorCode, true> = {
  validation_failed: true,
  bad_request: true,
  unauthorized: true,
  forbidden: true,
  scope_missing: true,
  plan_required: true,
  consent_required: true,
  not_found: true,
  conflict: true,
  invalid_state: true,
  idempotency_key_reused: true,
  location_check_failed: true,
  rate_limited: true,
  internal_error: true,
  unavailable: true,
};

/**
 * @gatehouse/client (clients/typescript) against the real app listening on a port, over real HTTP: directly, and
 * through a local proxy that forces 503s, 429s and dropped connections.
 */
describe('TypeScript client library (@gatehouse/client)', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let key: string;
  let site: string;
  let host: string;
  let proxy: FaultProxy;
  let receiver: WebhookReceiver;
  let gh: Gatehouse;

  /** A client through the fault proxy with short backoff steps. */
  const viaProxy = (o: { apiKey?: string; onRetry?: () => void } = {}) =>
    new Gatehouse({
      baseUrl: `${proxy.url}/v1`,
      apiKey: o.apiKey ?? key,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      onRetry: o.onRetry,
    });
  let phones = 0;
  /** A visit at the test site; each visitor has a phone of their own (visitors are matched by phone). */
  const visitBody = (name: string) => ({
    site_id: site,
    host_id: host,
    type: 'meeting',
    visitor: { name, phone: `+2332012${String((phones += 1)).padStart(5, '0')}` },
  });
  async function visitsNamed(client: Gatehouse, name: string) {
    const found = [];
    for await (const v of client.paginate('/visits', { limit: 100 }))
      if (v.visitor.name === name) found.push(v);
    return found;
  }

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await bootOAuthApp({
      ...LOCAL_DELIVERY_ENV,
      RUN_WORKER: 'true',
      TEST_MODE_RATE_PER_MINUTE: '100000',
    });
    proxy = await new FaultProxy(t.baseUrl).start();
    org = await createOrg(t.app, 'pro');
    key = await org.key();
    site = org.sites.find((s) => !s.livemode)!.id;
    gh = new Gatehouse({ baseUrl: `${t.baseUrl}/v1`, apiKey: key });
    host = (await gh.post('/people', { body: { name: 'Ama Host', email: 'ama@client.test' } })).id;
  });
  afterAll(async () => {
    await proxy?.stop();
    await t?.close();
    await receiver?.stop();
  });

  it('the committed generated types equal a fresh generation from the document the server serves', async () => {
    const served = await gh.get('/openapi.json');
    const dir = mkdtempSync(join(tmpdir(), 'client-gen-'));
    writeFileSync(join(dir, 'served.json'), JSON.stringify(served));
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'clients/typescript/scripts/generate.mjs'),
        '--from',
        join(dir, 'served.json'),
        '--out',
        join(dir, 'v1.ts'),
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const fresh = readFileSync(join(dir, 'v1.ts'), 'utf8');
    const committed = readFileSync(join(root, 'clients/typescript/src/generated/v1.ts'), 'utf8');
    // on a difference: `npm run snapshots && npm run client:generate`, and commit both
    expect(fresh.split('\n')).toEqual(committed.split('\n'));
  }, 90_000);

  it('creates a visit with an automatic Idempotency-Key; after a forced 503 the retry reuses it and one visit exists', async () => {
    proxy.failNext('POST', '/v1/visits', 'unavailable');
    const retries: unknown[] = [];
    const visit = await viaProxy({ onRetry: () => retries.push(1) }).post('/visits', {
      body: visitBody('Kofi Retry'),
    });
    expect(visit).toMatchObject({ status: 'expected', visitor: { name: 'Kofi Retry' } });
    const sent = proxy.on('POST', '/v1/visits');
    expect(sent.map((s) => s.status)).toEqual([503, 201]);
    expect(sent[0].idempotencyKey).toMatch(UUID);
    expect(sent[1].idempotencyKey).toBe(sent[0].idempotencyKey);
    expect(retries).toHaveLength(1);
    expect((await visitsNamed(gh, 'Kofi Retry')).map((v) => v.id)).toEqual([visit.id]);
  });

  it('a response lost after the server created the visit: the retry with the same key replays it, no duplicate', async () => {
    const before = proxy.on('POST', '/v1/visits').length;
    proxy.failNext('POST', '/v1/visits', 'lost-response');
    const visit = await viaProxy().post('/visits', { body: visitBody('Esi Lost') });
    const sent = proxy.on('POST', '/v1/visits').slice(before);
    // both requests reached the server with one key; the second got the first one's visit back
    expect(sent.map((s) => [s.fault, s.status])).toEqual([
      ['lost-response', 503],
      [null, 201],
    ]);
    expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(1);
    expect((await visitsNamed(gh, 'Esi Lost')).map((v) => v.id)).toEqual([visit.id]);
    // two calls are two visits: each POST gets its own key
    await viaProxy().post('/visits', { body: visitBody('Esi Lost') });
    expect(await visitsNamed(gh, 'Esi Lost')).toHaveLength(2);
  });

  it('a 429 waits at least its Retry-After; a dropped connection is retried; no answer at all is a typed unavailable', async () => {
    proxy.failNext('GET', '/v1/organisation', { rateLimitedFor: 1 });
    const organisation = await viaProxy().get('/organisation');
    expect(organisation.id).toBe(org.id);
    const [limited, after] = proxy.on('GET', '/v1/organisation');
    expect([limited.status, after.status]).toEqual([429, 200]);
    expect(after.at - limited.at).toBeGreaterThanOrEqual(1000);

    proxy.failNext('GET', '/v1/sites', 'drop');
    const sites = await viaProxy().get('/sites');
    expect(sites.data.map((s) => s.id)).toContain(site);
    expect(proxy.on('GET', '/v1/sites').map((s) => s.fault)).toEqual(['drop', null]);

    const closed = await freePort();
    let attempts = 0;
    const nowhere = new Gatehouse({
      baseUrl: `http://127.0.0.1:${closed}/v1`,
      apiKey: key,
      retry: { maxAttempts: 3, baseDelayMs: 5 },
      onRetry: () => (attempts += 1),
    });
    const err = await nowhere.get('/organisation').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatehouseError);
    expect(err).toMatchObject({ code: 'unavailable', status: 0, requestId: null });
    expect(attempts).toBe(2); // three attempts in all
  });

  it('reads Retry-After as seconds or an HTTP date; backoff is jittered, doubling, capped', () => {
    const now = Date.parse('2026-11-26T22:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Thu, 26 Nov 2026 22:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300, maxRetryAfterMs: 5000 };
    const low = () => 0;
    const high = () => 0.999;
    expect([1, 2, 3, 4].map((n) => retryDelay(policy, n, null, low))).toEqual([50, 100, 150, 150]);
    expect(retryDelay(policy, 1, null, high)).toBeCloseTo(100, 0);
    expect(retryDelay(policy, 1, '2', low)).toBe(2000);
    expect(retryDelay(policy, 1, '2', high)).toBeLessThan(2100);
    expect(retryDelay(policy, 1, '6', low)).toBeNull(); // longer than maxRetryAfterMs: not waited for
  });

  it('iterates a list three pages long, following next_cursor', async () => {
    const own = await createOrg(t.app, 'pro');
    const ownKey = await own.key();
    const client = new Gatehouse({ baseUrl: `${t.baseUrl}/v1`, apiKey: ownKey });
    const ownSite = own.sites.find((s) => !s.livemode)!.id;
    const ownHost = (await client.post('/people', { body: { name: 'Yaa Host', email: 'yaa@client.test' } }))
      .id;
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push(
        (
          await client.post('/visits', {
            body: {
              site_id: ownSite,
              host_id: ownHost,
              type: 'meeting',
              visitor: { name: `Pager ${i}`, phone: `+23324100000${i}` },
            },
          })
        ).id,
      );
    const pages = [];
    for await (const page of client.pages('/visits', { limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[2].next_cursor).toBeNull();
    const items = [];
    for await (const visit of client.paginate('/visits', { limit: 2 })) items.push(visit.id);
    expect([...items].sort()).toEqual([...created].sort());
    expect(pages.flatMap((p) => p.data.map((v) => v.id))).toEqual(items);
  });

  it('throws a GatehouseError typed by the problem code: scope_missing, validation_failed, not_found', async () => {
    const readOnly = new Gatehouse({
      baseUrl: `${t.baseUrl}/v1`,
      apiKey: await org.key({ scopes: ['visits:read'] }),
    });
    const err = await readOnly.post('/visits', { body: visitBody('Nope') }).catch((e: unknown) => e);
    expect(isGatehouseError(err, 'scope_missing')).toBe(true);
    if (!isGatehouseError(err, 'scope_missing')) throw err;
    expect(err.status).toBe(403);
    expect(err.requestId).toMatch(/^req_/);
    expect(err.message).toContain('visits:write');
    expect(err.errors).toEqual([]);
    expect(await visitsNamed(gh, 'Nope')).toEqual([]);

    const invalid = await gh
      .post('/visits', { body: { ...visitBody('Bad Site'), site_id: 'site_nope' } })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(GatehouseError);
    expect(invalid).toMatchObject({ code: 'validation_failed', status: 422 });
    expect((invalid as GatehouseError).errors.map((e) => e.location)).toContain('body.site_id');

    const missing = await gh
      .get('/visits/{visit_id}', { params: { path: { visit_id: 'visit_missing' } } })
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'not_found', status: 404 });

    // the client's code type is exactly the served contract's list
    const served = (await gh.get('/openapi.json')) as {
      components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
    };
    expect(Object.keys(CODES).sort()).toEqual(
      [...served.components.schemas.Problem.properties.code.enum].sort(),
    );
  });

  it('verifies a real webhook delivery with webhooks.verify and rejects a tampered one', async () => {
    const endpoint = await gh.post('/webhook-endpoints', {
      body: { url: receiver.url('/ok/client'), enabled_events: ['visit.created'] },
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const visit = await gh.post('/visits', { body: visitBody('Abena Hook') });
    const [delivery] = await receiver.waitFor('/ok/client', 1);
    const event = gh.webhooks.verify(delivery.body, delivery.headers, endpoint.secret);
    expect(event).toMatchObject({ type: 'visit.created', livemode: false, organisation_id: org.id });
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect((event.data.object as { id: string }).id).toBe(visit.id);
    // Fetch Headers work as well as Node's headers object
    const fetchHeaders = new Headers(delivery.headers as Record<string, string>);
    expect(gh.webhooks.verify(Buffer.from(delivery.body), fetchHeaders, endpoint.secret).id).toBe(event.id);

    const tampered = delivery.body.replace('Abena Hook', 'Someone Else');
    expect(() => gh.webhooks.verify(tampered, delivery.headers, endpoint.secret)).toThrow(
      WebhookVerificationError,
    );
    const other = await gh.post('/webhook-endpoints', {
      body: { url: receiver.url('/ok/other'), enabled_events: ['person.created'] },
    });
    expect(() => gh.webhooks.verify(delivery.body, delivery.headers, other.secret)).toThrow(
      WebhookVerificationError,
    );
  });

  async function expireAccessTokens() {
    const db = new Client({ connectionString: t.db.url });
    await db.connect();
    try {
      await db.query(
        `UPDATE oauth.model SET expires_at = now() - interval '1 second' WHERE kind = 'AccessToken'`,
      );
    } finally {
      await db.end();
    }
  }

  it('a connected app: on a 401 the client refreshes the token once, retries, and hands over the rotated tokens', async () => {
    const owner = await createPerson(t, org, 'owner');
    const redirectUri = 'http://127.0.0.1:9/callback';
    const app = await registerApp(t, owner, 'public', redirectUri, 'Client library app');
    const as = await discover(t.baseUrl);
    const first = await publicClientToken(t.baseUrl, as, {
      person: owner,
      clientId: app.client_id,
      redirectUri,
      scope: 'organisation:read visits:read',
      mode: 'test',
    });
    // the access token expires (its hour moved into the past; revoking it would end the whole grant)
    await expireAccessTokens();
    const rejected = await fetch(`${t.baseUrl}/v1/organisation`, {
      headers: { authorization: `Bearer ${first.access_token}` },
    });
    expect(rejected.status).toBe(401);

    const stored: OAuthTokens[] = [];
    const connected = new Gatehouse({
      baseUrl: `${proxy.url}/v1`,
      oauth: {
        accessToken: first.access_token,
        refreshToken: first.refresh_token!,
        tokenEndpoint: as.token_endpoint!,
        clientId: app.client_id,
        onTokens: (tokens) => void stored.push(tokens),
      },
    });
    const before = proxy.on('GET', '/v1/organisation').length;
    expect((await connected.get('/organisation')).id).toBe(org.id);
    const calls = proxy.on('GET', '/v1/organisation').slice(before);
    expect(calls.map((c) => c.status)).toEqual([401, 200]);
    expect(stored).toHaveLength(1);
    expect(stored[0].accessToken).toMatch(/^svc_at_/);
    expect(stored[0].accessToken).not.toBe(first.access_token);
    expect(stored[0].refreshToken).not.toBe(first.refresh_token);
    expect(calls[1].authorization).toBe(`Bearer ${stored[0].accessToken}`);
    // later calls use the new token without refreshing again
    await connected.get('/visits', { params: { query: { limit: 1 } } });
    expect(stored).toHaveLength(1);
    // three calls that meet the next expiry together share one refresh (a second would spend a rotated token)
    await expireAccessTokens();
    const together = await Promise.all([1, 2, 3].map(() => connected.get('/organisation')));
    expect(together.map((o) => o.id)).toEqual([org.id, org.id, org.id]);
    expect(stored).toHaveLength(2);
    expect(stored[1].refreshToken).not.toBe(stored[0].refreshToken);

    // a refresh token that is spent cannot refresh: the caller sees the OAuth error
    const stale = new Gatehouse({
      baseUrl: `${t.baseUrl}/v1`,
      oauth: {
        accessToken: 'svc_at_unknown',
        refreshToken: first.refresh_token!,
        tokenEndpoint: as.token_endpoint!,
        clientId: app.client_id,
      },
    });
    const failed = await stale.get('/organisation').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OAuthRefreshError);
    expect(failed).toMatchObject({ error: 'invalid_grant' });
  });
});
