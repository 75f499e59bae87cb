import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as oauth from 'oauth4webapi';
import { DataSource } from 'typeorm';
import type { TestApp } from '../harness';
import {
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  metadataDocumentHost,
  PASSWORD,
  publicClientToken,
  v1Get,
} from '../support/oauth-fixtures';
import { call, type TestOrg } from '../support/platform-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { TOOLS } from '../../src/mcp/tools';
import { V1Operations } from '../../src/mcp/v1-operations';
import { DEFAULT_SCOPES, roleAllows, SCOPES, type Role, type Scope } from '../../src/visitor/platform/scopes';

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * OAuth access tokens at the real tool server: from the 401 of /mcp to a token for a Client ID Metadata Document
 * client bound to `${BASE_URL}/mcp` (RFC 8707), then the official MCP client (v2) over HTTP with it; tokens of the
 * other resource refused both ways, a member's token limited by the role, and the organisation's revocation.
 */
describe('OAuth tokens at the tool server /mcp', () => {
  let t: TestApp & { baseUrl: string };
  let host: Awaited<ReturnType<typeof metadataDocumentHost>>;
  let org: TestOrg;
  let admin: AccountRow;
  let member: AccountRow;
  let as: oauth.AuthorizationServer;
  let clientId: string;
  let visitId: string;
  const redirectUri = 'http://localhost:7777/callback';
  const clients: Client[] = [];

  beforeAll(async () => {
    host = await metadataDocumentHost((self) => ({
      '/assistant.json': { client_id: self, client_name: 'MCP Assistant', redirect_uris: [redirectUri] },
    }));
    clientId = `${host.origin}/assistant.json`;
    t = await bootOAuthApp();
    org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    member = await createPerson(t, org, 'member');
    as = await discover(t.baseUrl);
    // one expected visit in test mode, made through /v1 with a secret key
    const key = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    const person = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: 'Ama Host', email: 'ama@host.test' },
    });
    const visit = await call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: person.json().id as string,
        type: 'meeting',
        visitor: { name: 'Kofi Boateng', phone: '+233244123456' },
      },
    });
    expect(visit.statusCode).toBe(201);
    visitId = visit.json().id as string;
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t?.close();
    await host?.close();
  });

  const mcpResource = () => `${t.baseUrl}/mcp`;

  /** A token for the metadata-document client, the person consenting on the authorization page. */
  const token = async (person: AccountRow, scope: string, resource = mcpResource()) =>
    publicClientToken(t.baseUrl, as, { person, clientId, redirectUri, scope, mode: 'test', resource });

  /** The official v2 client, pinned to the 2026-07-28 revision, sending the token. */
  async function connect(accessToken: string): Promise<Client> {
    const client = new Client(
      { name: 'oauth-assistant', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  /** A raw tools/list POST to /mcp, for the status and headers a client sees. */
  const rawList = (accessToken: string | null) =>
    fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;

  it('1. a 401 without a token names the /mcp resource metadata and the default scope; the document names /mcp', async () => {
    const res = await rawList(null);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toBe(
      `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="${DEFAULT_SCOPES.join(' ')}"`,
    );
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    const doc = await fetch(metadataUrl);
    expect(doc.status).toBe(200);
    expect(await doc.json()).toMatchObject({
      resource: `${t.baseUrl}/mcp`,
      authorization_servers: [t.baseUrl],
      scopes_supported: [...SCOPES],
    });
  });

  it('2. a metadata-document client gets a token for /mcp and lists tools and calls list_visits with the v2 client', async () => {
    const tokens = await token(admin, 'visits:read sites:read');
    expect(tokens.scope).toBe('visits:read sites:read');
    expect(host.hits.get('/assistant.json')).toBeGreaterThanOrEqual(1);
    const client = await connect(tokens.access_token);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['get_visit', 'list_sites', 'list_visits', 'who_is_on_site']);
    const visits = await callTool(client, 'list_visits', { status: 'expected', limit: 5 });
    expect(visits.isError).toBeFalsy();
    expect(visits.structuredContent).toMatchObject({
      data: [expect.objectContaining({ id: visitId, status: 'expected' })],
      has_more: false,
    });
    expect(visits.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    // the same page as /v1 with the same filters, read with a /v1 token of the same client
    const v1Token = (await token(admin, 'visits:read', `${t.baseUrl}/v1`)).access_token;
    const page = await v1Get(t, v1Token, '/v1/visits?status=expected&limit=5');
    expect(page.status).toBe(200);
    expect(visits.structuredContent).toEqual(await page.json());
  });

  it('3. the client’s /v1 token is 401 at /mcp, and its /mcp token 401 at GET /v1/visits', async () => {
    const v1Token = (await token(admin, 'visits:read', `${t.baseUrl}/v1`)).access_token;
    expect((await v1Get(t, v1Token, '/v1/visits')).status).toBe(200);
    const atMcp = await rawList(v1Token);
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(connect(v1Token)).rejects.toThrow(/401|nauthori/);

    const mcpToken = (await token(admin, 'visits:read')).access_token;
    expect((await callTool(await connect(mcpToken), 'list_visits')).isError).toBeFalsy();
    const atV1 = await v1Get(t, mcpToken, '/v1/visits');
    expect(atV1.status).toBe(401);
    expect(await atV1.json()).toMatchObject({ code: 'unauthorized' });
  });

  it("4. a member's token lists only tools the role and the grant allow; a tool outside them is 403 insufficient_scope, or a tool error naming forbidden once the role is lowered (before its arguments are read)", async () => {
    const ops = t.app.get(V1Operations);
    const scopesOf = (tool: (typeof TOOLS)[number]) =>
      tool.operations.map((id) => ops.get(id).need.scope as Scope);
    const forbiddenTo = (role: Role) =>
      TOOLS.filter((tool) => scopesOf(tool).some((s) => !roleAllows(role, s))).map((x) => x.name);
    // members run the front door: no tool needs a scope the member role forbids; support staff only read
    expect(forbiddenTo('member')).toEqual([]);
    const writes = forbiddenTo('support');
    expect(writes).toEqual(expect.arrayContaining(['invite_visitor', 'change_visit', 'record_delivery']));
    const invite = {
      site_id: org.sites.find((s) => !s.livemode)!.id,
      host_id: 'per_nobody',
      type: 'meeting',
      visitor: { name: 'Kofi Boateng', phone: '+233244123456' },
    };

    // the member asks for every scope; the consent page offers only what the role allows (destructive unticked)
    const tokens = await token(member, SCOPES.join(' '));
    const held = tokens.scope!.split(' ') as Scope[];
    for (const s of held) expect(roleAllows('member', s)).toBe(true);
    const client = await connect(tokens.access_token);
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(listed).toEqual(
      TOOLS.filter((tool) => scopesOf(tool).every((s) => held.includes(s)))
        .map((x) => x.name)
        .sort(),
    );
    expect(listed).toContain('invite_visitor');
    // a member's token granted reads only: the write tools are not listed, and calling one is scope_missing
    const readOnly = await connect((await token(member, 'visits:read sites:read')).access_token);
    expect((await readOnly.listTools()).tools.map((tool) => tool.name)).not.toContain('invite_visitor');
    // (403 insufficient_scope naming the tool's scopes: the client would step up with an OAuth provider)
    await expect(callTool(readOnly, 'invite_visitor', invite)).rejects.toMatchObject({
      name: 'InsufficientScopeError',
      requiredScope: 'visits:write',
      resourceMetadataUrl: new URL(`${t.baseUrl}/.well-known/oauth-protected-resource/mcp`),
    });

    // a support person's consent grants no write, so no write tool is listed
    const support = await createPerson(t, org, 'support');
    const supportClient = await connect((await token(support, SCOPES.join(' '))).access_token);
    const supportTools = (await supportClient.listTools()).tools.map((tool) => tool.name);
    expect(supportTools.length).toBeGreaterThan(0);
    for (const name of writes) expect(supportTools).not.toContain(name);

    // an admin's token holding visits:write, the admin then lowered to support: the role now forbids the tool
    const adminClient = await connect(
      (await token(admin, 'visits:read visits:write sites:read')).access_token,
    );
    expect((await adminClient.listTools()).tools.map((tool) => tool.name)).toContain('invite_visitor');
    const db = t.app.get(DataSource);
    await db.query(`UPDATE visitor.console_account SET role = 'support' WHERE id = $1`, [admin.id]);
    try {
      expect((await adminClient.listTools()).tools.map((tool) => tool.name)).not.toContain('invite_visitor');
      const byRole = await callTool(adminClient, 'invite_visitor', invite);
      expect(byRole.isError).toBe(true);
      expect(byRole.content[0].text).toMatch(
        /^forbidden: The support role does not allow visits:write\..*\[request req_\w+\]$/,
      );
      expect(byRole.structuredContent).toMatchObject({ code: 'forbidden' });
      // the role is checked before the arguments are read
      const badArgs = await callTool(adminClient, 'invite_visitor', {
        ...invite,
        visitor: 'nobody',
        colour: 1,
      });
      expect(badArgs.structuredContent).toMatchObject({ code: 'forbidden' });
    } finally {
      await db.query(`UPDATE visitor.console_account SET role = 'admin' WHERE id = $1`, [admin.id]);
    }
  });

  it('5. after the organisation revokes the app, the next /mcp call is 401', async () => {
    const tokens = await token(admin, 'visits:read');
    const client = await connect(tokens.access_token);
    expect((await callTool(client, 'list_visits')).isError).toBeFalsy();

    const session = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email: admin.email, password: PASSWORD },
    });
    expect(session.statusCode).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0];
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/console/connected-apps/${encodeURIComponent(clientId)}/revoke`,
      headers: { cookie },
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ status: 'denied', connections: [] });

    await expect(client.callTool({ name: 'list_visits', arguments: {} })).rejects.toThrow(/401|nauthori/);
    const raw = await rawList(tokens.access_token);
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
