import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rawToolCall } from '../support/mcp-raw';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bootTestApp, TestApp } from '../harness';
import { call, createOrg, TestOrg } from '../support/platform-fixtures';
import { saveBookingType } from '../support/booking-fixtures';
import { until } from '../support/until';
import { TOOLS } from '../../src/mcp/tools';
import { V1Operations } from '../../src/mcp/v1-operations';
import { SCOPES } from '../../src/visitor/platform/scopes';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';

const PASSWORD = 'correct horse battery staple';
const OPERATOR_TOKEN = 'operator-token-for-tests-000000';

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe('the tool server at /mcp', () => {
  let t: TestApp;
  let base: string;
  let org: TestOrg;
  let key: string;
  let site: string;
  let host: string;
  const clients: { close(): Promise<void> }[] = [];
  const ops = () => t.app.get(V1Operations);

  beforeAll(async () => {
    t = await bootTestApp({
      env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000', OPERATOR_TOKEN },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    org = await createOrg(t.app, 'pro');
    key = await org.key();
    site = org.sites.find((s) => !s.livemode)!.id;
    host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
    ).json().id as string;
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t?.close();
  });

  /** A 2026-07-28 client (the v2 client pinned to the modern revision) with this credential. */
  async function modern(credential: string): Promise<Client> {
    const client = new Client(
      { name: 'test-assistant', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;

  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

  it('lists every tool to a full-scope secret key, each described for a model, the whole list under 3,000 tokens', async () => {
    const client = await modern(key);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    expect(tools.length).toBeLessThanOrEqual(15);
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description).toEqual(expect.any(String));
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toEqual({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
    }
    // A simple token estimate: four characters of JSON per token.
    expect(JSON.stringify({ tools }).length / 4).toBeLessThan(3000);
    expect(tools.map((tool) => tool.name)).not.toEqual(
      expect.arrayContaining(['erase_visitor', 'start_roll_call', 'close_roll_call']),
    );
  });

  /** A raw tools/call of the 2026-07-28 revision, for the status and headers a client sees. */
  const rawCall = (credential: string, name: string, args: Record<string, unknown>) =>
    rawToolCall(base, credential, name, args);

  it('lists only the tools the scopes allow; a tool outside them is 403 insufficient_scope naming every scope it needs', async () => {
    const limited = await org.key({ scopes: ['visits:read', 'sites:read'] });
    const client = await modern(limited);
    expect(await names(client)).toEqual(['get_visit', 'list_sites', 'list_visits', 'who_is_on_site']);
    // the v2 client reads the challenge (it would step up with an OAuth provider; with a key it gives up)
    await expect(callTool(client, 'search_people', { q: 'ama' })).rejects.toMatchObject({
      name: 'InsufficientScopeError',
      requiredScope: 'people:read',
    });
    const refused = await rawCall(limited, 'search_people', { q: 'ama' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="people:read", resource_metadata="${t.config.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await refused.json()).toMatchObject({
      code: 'scope_missing',
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('refuses a tool for its scope before reading its arguments; with the scope, bad arguments are validation_failed', async () => {
    const tool = TOOLS.find((x) => x.name === 'change_visit')!;
    const needs = [...new Set(tool.operations.map((id) => ops().get(id).need.scope))];
    expect(needs).toEqual(['visits:write']);
    const bad = { visit_id: 42, action: 'explode', colour: 'red' };
    const readOnly = await org.key({ scopes: ['visits:read'] });
    const refused = await rawCall(readOnly, 'change_visit', bad);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain(
      `error="insufficient_scope", scope="visits:write"`,
    );
    expect(await refused.json()).toMatchObject({ code: 'scope_missing' });
    // a credential that may use the tool gets the argument errors, as a tool error
    const client = await modern(await org.key({ scopes: ['visits:read', 'visits:write'] }));
    const invalid = await callTool(client, 'change_visit', bad);
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({
      code: 'validation_failed',
      errors: expect.arrayContaining([expect.objectContaining({ location: 'arguments.colour' })]),
    });
  });

  it('refuses a publishable key at the endpoint', async () => {
    const publishable = await org.key({ kind: 'publishable' });
    await expect(modern(publishable)).rejects.toThrow(/403/);
  });

  it('lists only the events tool to a Growth organisation in live mode, and answers plan_required for live data', async () => {
    const growth = await createOrg(t.app, 'growth');
    const client = await modern(await growth.key({ mode: 'live' }));
    expect(await names(client)).toEqual(['recent_events']);
    const refused = await callTool(client, 'list_visits');
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^plan_required: /);
    // the plan is checked before the arguments
    const badArgs = await callTool(client, 'list_visits', { status: 'exploded', colour: 'red' });
    expect(badArgs.structuredContent).toMatchObject({ code: 'plan_required' });
    // Test mode has every tool on every plan.
    const test = await modern(await growth.key({ mode: 'test' }));
    expect((await names(test)).length).toBe((await names(await modern(key))).length);
    expect((await callTool(test, 'list_visits')).isError).toBeFalsy();
  });

  it('runs each tool on a test-mode organisation and answers the /v1 object or page', async () => {
    const client = await modern(key);
    const sites = await callTool(client, 'list_sites');
    expect(sites.structuredContent).toMatchObject({
      data: [expect.objectContaining({ id: site })],
      has_more: false,
    });
    expect(sites.content).toEqual([{ type: 'text', text: '1 sites.' }]);

    const people = await callTool(client, 'search_people', { q: 'ama' });
    expect(people.structuredContent!.data).toEqual([expect.objectContaining({ id: host })]);

    const invited = await callTool(client, 'invite_visitor', {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Kofi Boateng', phone: '+233244123456' },
    });
    expect(invited.isError).toBeFalsy();
    const visit = invited.structuredContent!;
    expect(visit.id).toMatch(/^visit_/);
    const v1 = (await call(t.app, 'GET', `/v1/visits/${String(visit.id)}`, { key })).json();
    expect(visit).toEqual(v1);

    expect((await callTool(client, 'get_visit', { visit_id: visit.id })).structuredContent).toEqual(v1);
    const listed = await callTool(client, 'list_visits', { site_id: site, limit: 1 });
    expect(listed.structuredContent).toMatchObject({ data: [expect.objectContaining({ id: visit.id })] });
    expect(listed.structuredContent).toHaveProperty('next_cursor');

    const checkedIn = await callTool(client, 'change_visit', { visit_id: visit.id, action: 'check_in' });
    expect(checkedIn.structuredContent).toMatchObject({ id: visit.id, status: 'checked_in' });
    const onSite = await callTool(client, 'who_is_on_site', { site_id: site });
    expect(onSite.structuredContent!.data).toEqual([expect.objectContaining({ id: visit.id })]);
    const out = await callTool(client, 'change_visit', { visit_id: visit.id, action: 'check_out' });
    expect(out.structuredContent).toMatchObject({ status: 'checked_out' });

    const delivery = await callTool(client, 'record_delivery', {
      site_id: site,
      recipient_id: host,
      carrier: 'DHL',
    });
    expect(delivery.structuredContent).toMatchObject({
      id: expect.stringMatching(/^delivery_/),
      carrier: 'DHL',
    });

    const tenant = { organisationId: org.id, livemode: false };
    const type = await saveBookingType(t.app, tenant, { site, host });
    const types = await callTool(client, 'find_availability');
    expect(types.structuredContent!.data).toEqual([expect.objectContaining({ id: type.id })]);
    const availability = await callTool(client, 'find_availability', { booking_type_id: type.id });
    expect(availability.isError).toBeFalsy();
    const slot = JSON.stringify(availability.structuredContent).match(/"start":"([^"]+)"/)![1];
    const booked = await callTool(client, 'book_slot', {
      booking_type_id: type.id,
      start: slot,
      attendee: { name: 'Abena Attendee', phone: '+233201234567' },
    });
    expect(booked.structuredContent).toMatchObject({ id: expect.stringMatching(/^booking_/) });
    const decided = await callTool(client, 'decide_booking', {
      booking_id: booked.structuredContent!.id,
      decision: booked.structuredContent!.status === 'pending' ? 'confirm' : 'cancel',
    });
    expect(decided.isError).toBeFalsy();

    const rollcalls = await callTool(client, 'roll_call_status');
    expect(rollcalls.structuredContent).toMatchObject({ data: [] });
    const events = await callTool(client, 'recent_events', { type: 'visit.checked_in' });
    expect(events.structuredContent!.data).toEqual([expect.objectContaining({ type: 'visit.checked_in' })]);
    const attendance = await callTool(client, 'attendance_summary', { from: '2026-03-01', to: '2026-03-07' });
    expect(attendance.structuredContent).toMatchObject({ from: '2026-03-01', to: '2026-03-07' });
  });

  it('reports bad arguments and domain errors as tool errors with the code and request id', async () => {
    const client = await modern(key);
    const missing = await callTool(client, 'get_visit', { visit_id: 'visit_nope' });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.content[0].text).toMatch(/^not_found: .*\[request req_\w+\]$/);
    const bad = await callTool(client, 'change_visit', { visit_id: 'visit_x', action: 'teleport' });
    expect(bad.content[0].text).toMatch(/^validation_failed: .*arguments\.action/);
    const invalid = await callTool(client, 'invite_visitor', {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'No Phone', phone: '12' },
    });
    expect(invalid.content[0].text).toMatch(/^validation_failed: .*body\.visitor\.phone/);
  });

  it('does not invite twice when the same invitation is asked for again (a retry after a broken stream)', async () => {
    const client = await modern(key);
    const args = {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Yaw Retry', phone: '+233244000111' },
      expected_at: '2030-01-02T10:00:00Z',
    };
    const first = await callTool(client, 'invite_visitor', args);
    const again = await callTool(await modern(key), 'invite_visitor', { ...args });
    expect(again.structuredContent).toEqual(first.structuredContent);
    const visits = (await call(t.app, 'GET', `/v1/visits?site_id=${site}&limit=100`, { key })).json()
      .data as {
      visitor: { name: string };
    }[];
    expect(visits.filter((v) => v.visitor.name === 'Yaw Retry')).toHaveLength(1);
  });

  it('runs a refused change again when asked again later, rather than replaying the refusal', async () => {
    const client = await modern(key);
    const { structuredContent: visit } = await callTool(client, 'invite_visitor', {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Kwesi Later', phone: '+233244000444' },
    });
    const early = await callTool(client, 'change_visit', { visit_id: visit!.id, action: 'check_out' });
    expect(early.isError).toBe(true);
    expect(
      (await callTool(client, 'change_visit', { visit_id: visit!.id, action: 'check_in' })).isError,
    ).toBeFalsy();
    const out = await callTool(client, 'change_visit', { visit_id: visit!.id, action: 'check_out' });
    expect(out.structuredContent).toMatchObject({ id: visit!.id, status: 'checked_out' });
  });

  it('leaves sensitive and masked form answers out of every tool result, as /v1 does', async () => {
    const email = `admin@${org.id.slice(4).toLowerCase()}.test`;
    await t.app
      .get(AccountsService)
      .create(
        org.id,
        { email, name: 'A', role: 'admin', password: PASSWORD },
        { type: 'operator', id: 'test' },
      );
    const session = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password: PASSWORD },
    });
    const cookie = String(session.headers['set-cookie']).split(';')[0];
    const form = await t.app.inject({
      method: 'PUT',
      url: '/console/forms/visit',
      headers: { cookie },
      payload: {
        schema: {
          type: 'object',
          properties: {
            laptop: { type: 'boolean' },
            id_number: { type: 'string', 'x-svc-sensitive': true },
            badge_code: { type: 'string', 'x-svc-masked': true },
          },
        },
      },
    });
    expect(form.statusCode).toBe(200);
    const client = await modern(key);
    const results = [
      await callTool(client, 'invite_visitor', {
        site_id: site,
        host_id: host,
        type: 'meeting',
        visitor: { name: 'Adwoa Secret', phone: '+233244000333' },
        custom_fields: { laptop: true, id_number: 'GHA-123456789-0', badge_code: 'MASKED-7731' },
      }),
    ];
    const visit = results[0].structuredContent!;
    expect(visit.custom_fields).toEqual({ laptop: true });
    results.push(
      await callTool(client, 'get_visit', { visit_id: visit.id }),
      await callTool(client, 'list_visits', { limit: 100 }),
      await callTool(client, 'recent_events', { limit: 100 }),
      await callTool(client, 'change_visit', { visit_id: visit.id, action: 'check_in' }),
      await callTool(client, 'who_is_on_site', {}),
    );
    for (const r of results) {
      expect(r.isError).toBeFalsy();
      expect(JSON.stringify(r)).not.toMatch(/GHA-123456789-0|MASKED-7731/);
    }
  });

  it('keeps live and test data apart', async () => {
    const client = await modern(key);
    const { structuredContent: visit } = await callTool(client, 'invite_visitor', {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Esi Test', phone: '+233244000222' },
    });
    const live = await modern(await org.key({ mode: 'live' }));
    const fromLive = await callTool(live, 'get_visit', { visit_id: visit!.id });
    expect(fromLive.content[0].text).toMatch(/^not_found: /);
    expect((await callTool(live, 'list_visits')).structuredContent).toMatchObject({ data: [] });
  });

  it('records each call in the audit trail as the key acting, with the tool and the arguments’ hash', async () => {
    const client = await modern(key);
    await callTool(client, 'list_sites', { limit: 5 });
    type Row = { actor: { type: string }; data: Record<string, unknown> };
    // A read's entry is written off the call's path (within 100 ms): wait for it to be there.
    const audit = await until(async () => {
      const rows = (
        await call(t.app, 'GET', '/v1/audit-events?action=mcp.tool_called&limit=100', { key })
      ).json().data as Row[];
      return rows.some((r) => r.data.tool === 'list_sites') && rows;
    }, 30_000);
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          actor: expect.objectContaining({ type: 'api_key' }),
          data: expect.objectContaining({
            tool: 'list_sites',
            arguments_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
            outcome: 'ok',
          }),
        }),
      ]),
    );
    // A write's entry is committed before the call answers: it is there at once.
    await callTool(client, 'invite_visitor', {
      site_id: site,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Audit Trail', phone: '+233244000333' },
    });
    const written = (
      await call(t.app, 'GET', '/v1/audit-events?action=mcp.tool_called&limit=100', { key })
    ).json().data as Row[];
    expect(written).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ data: expect.objectContaining({ tool: 'invite_visitor', outcome: 'ok' }) }),
      ]),
    );
  });

  it('serves a 2025-revision client (the 1.x SDK) at the same endpoint, statelessly', async () => {
    const client = new LegacyClient({ name: 'old-assistant', version: '1.0.0' });
    await client.connect(
      new LegacyTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('list_sites');
    const sites = (await client.callTool({ name: 'list_sites', arguments: {} })) as Result;
    expect(sites.structuredContent).toMatchObject({ data: [expect.objectContaining({ id: site })] });
  });

  it('counts each call against the organisation’s /v1 allowance and logs it under its request id for support', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_visit', arguments: { visit_id: 'visit_unknown' } },
      }),
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('svc-request-id')!;
    expect(await res.text()).toContain(`[request ${id}]`);
    const remaining = Number(res.headers.get('ratelimit-remaining'));
    const v1 = await call(t.app, 'GET', '/v1/sites', { key });
    expect(Number(v1.headers['ratelimit-remaining'])).toBeLessThan(remaining);
    const found = await until(async () => {
      const r = await t.app.inject({
        method: 'GET',
        url: `/console/support/requests/${id}`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      const rows = r.json().data as Record<string, unknown>[] | undefined;
      return rows?.length ? rows : undefined;
    });
    expect(found[0]).toMatchObject({
      request_id: id,
      surface: 'mcp',
      method: 'POST',
      path: '/mcp',
      status: 200,
      error_code: 'not_found',
      organisation_id: org.id,
    });
  });

  it('has no session to open or end (GET and DELETE: 405)', async () => {
    for (const method of ['GET', 'DELETE'])
      expect(
        (
          await fetch(`${base}/mcp`, {
            method,
            headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
          })
        ).status,
      ).toBe(405);
  });

  it('the /docs guide "Connect an AI assistant" names the endpoint and every tool with the scope it needs', async () => {
    const res = await fetch(`${base}/docs/connect-an-ai-assistant`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`${t.config.baseUrl}/mcp`);
    const rows = [
      ...html.matchAll(/<tr><td><code>(\w+)<\/code><\/td><td>[^<]*<\/td><td><code>([^<]+)<\/code>/g),
    ].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(
      TOOLS.map((tool) => [
        tool.name,
        [...new Set(tool.operations.map((id) => ops().get(id).need.scope))].join(', '),
      ]),
    );
    expect(rows.find(([name]) => name === 'invite_visitor')).toEqual(['invite_visitor', 'visits:write']);
  });

  it('answers 401 without a credential', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(SCOPES.length).toBeGreaterThan(0);
  });
});
