import { bootTestApp, TestApp } from '../harness';
import { rawToolCall } from '../support/mcp-raw';
import { createOrg, TestOrg } from '../support/platform-fixtures';
import { McpToolServer } from '../../src/mcp/tool-server';

/** What a client sees of an answer: status, the headers that matter, the body (request ids made equal). */
interface Seen {
  status: number;
  contentType: string | null;
  challenge: string | null;
  body: string;
}

/**
 * The direct path of /mcp (src/mcp/direct-call.ts) against the SDK's: the same request answered by each gives the
 * same JSON-RPC response. A client's first tools/call goes through the SDK (its envelope is not yet known); the same
 * call again takes the direct path — a spy on the SDK handler's `fetch` tells which path answered.
 */
describe('the direct path of /mcp', () => {
  let t: TestApp;
  let base: string;
  let org: TestOrg;
  let key: string;
  let sdkCalls: jest.SpyInstance;
  let round = 0;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    org = await createOrg(t.app, 'pro');
    key = await org.key();
    const server = t.app.get(McpToolServer);
    sdkCalls = jest.spyOn(server['handler'], 'fetch');
  }, 60_000);

  afterAll(async () => {
    sdkCalls?.mockRestore();
    await t?.close();
  });

  /** A tools/call of the 2026-07-28 revision as the v2 client sends it, from a client named `client`. */
  async function send(credential: string, client: string, name: string, args: unknown): Promise<Seen> {
    const res = await rawToolCall(base, credential, name, args, client, 7);
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      challenge: res.headers.get('www-authenticate'),
      body: (await res.text()).replace(/req_[A-Za-z0-9]+/g, 'req_X'),
    };
  }

  /** The call answered by the SDK (a new client's first call), then again by the path `second` names. */
  async function bothPaths(
    name: string,
    args: unknown,
    second: 'direct' | 'sdk' | 'neither',
    credential = key,
  ) {
    const client = `assistant-${++round}`;
    sdkCalls.mockClear();
    const first = await send(credential, client, name, args);
    expect(sdkCalls).toHaveBeenCalledTimes(second === 'neither' ? 0 : 1);
    const again = await send(credential, client, name, args);
    expect(sdkCalls).toHaveBeenCalledTimes(second === 'sdk' ? 2 : second === 'neither' ? 0 : 1);
    expect(again).toEqual(first);
    return first;
  }

  it('answers a successful call as the SDK does', async () => {
    const seen = await bothPaths('list_sites', { limit: 5 }, 'direct');
    expect(seen.status).toBe(200);
    expect(seen.contentType).toBe('application/json');
    const body = JSON.parse(seen.body) as {
      id: number;
      result: { structuredContent: { data: { id: string }[] }; resultType: string; _meta: object };
    };
    expect(body.id).toBe(7);
    expect(body.result.structuredContent.data.map((s) => s.id)).toEqual(
      org.sites.filter((s) => !s.livemode).map((s) => s.id),
    );
    expect(body.result.resultType).toBe('complete');
    expect(body.result._meta).toEqual({
      'io.modelcontextprotocol/serverInfo': { name: 'gatehouse', title: 'Gatehouse', version: '1.0.0' },
    });
  });

  it('answers invalid arguments as the same tool error', async () => {
    const seen = await bothPaths('list_visits', { limit: 500, colour: 'red' }, 'direct');
    expect(seen.status).toBe(200);
    const body = JSON.parse(seen.body) as {
      result: { isError: boolean; structuredContent: { code: string } };
    };
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent.code).toBe('validation_failed');
  });

  it('answers a tool error (an unknown visit) the same way', async () => {
    const seen = await bothPaths('get_visit', { visit_id: 'visit_doesnotexist0000000' }, 'direct');
    expect(JSON.parse(seen.body)).toMatchObject({
      result: { isError: true, structuredContent: { code: 'not_found', request_id: 'req_X' } },
    });
  });

  it('leaves an unknown tool to the SDK', async () => {
    const seen = await bothPaths('no_such_tool', {}, 'sdk');
    expect(JSON.parse(seen.body)).toMatchObject({ id: 7, error: { code: -32602 } });
  });

  it('refuses a tool outside the scopes before either path', async () => {
    const limited = await org.key({ scopes: ['sites:read'] });
    const seen = await bothPaths('list_visits', {}, 'neither', limited);
    expect(seen.status).toBe(403);
    expect(seen.challenge).toContain('error="insufficient_scope", scope="visits:read"');
  });

  it('leaves to the SDK a call whose headers disagree with its body', async () => {
    const client = `assistant-${++round}`;
    await send(key, client, 'list_sites', {});
    sdkCalls.mockClear();
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'list_visits',
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: {
          name: 'list_sites',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(sdkCalls).toHaveBeenCalledTimes(1);
  });
});
