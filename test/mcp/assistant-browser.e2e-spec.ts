import {
  auth,
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { DataSource } from 'typeorm';
import type { TestApp } from '../harness';
import { launchBrowser } from '../support/browser';
import { bootOAuthApp, createOrg, createPerson, PASSWORD, redirectHost } from '../support/oauth-fixtures';
import { call, type TestOrg } from '../support/platform-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { TOOLS } from '../../src/mcp/tools';
import { V1Operations } from '../../src/mcp/v1-operations';
import { DEFAULT_SCOPES, type Scope } from '../../src/visitor/platform/scopes';

const ARTEFACTS = join(__dirname, '../../test-artifacts/mcp');

/** What an assistant keeps between runs, in memory: its registration, tokens, PKCE verifier and discovery. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  /** Where the assistant would send the person's browser. */
  authorizationUrl: URL | undefined;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Browser Assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(c: OAuthClientInformationMixed) {
    this.client = c;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(s: OAuthDiscoveryState) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}

const sorted = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();

/**
 * An AI assistant built on the official MCP client (v2) connecting to /mcp as a dynamically registered client, the
 * person's part done in headless Chromium: from the 401 to a token (the SDK registers with the challenge's scope),
 * a step-up from a tool's 403 `insufficient_scope`, and a request for a destructive scope, which the consent page
 * offers unticked. Each token holds only what the person granted, and `tools/list` follows it.
 */
describe('an MCP assistant connects by dynamic registration, consent in Chromium', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let admin: AccountRow;
  let browser: Browser;
  let person: BrowserContext;
  let host: Awaited<ReturnType<typeof redirectHost>>;
  let callback: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    host = await redirectHost();
    callback = host.url;
    t = await bootOAuthApp();
    org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    browser = await launchBrowser();
    person = await browser.newContext();
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
    await host?.close();
  });

  const mcpUrl = () => new URL(`${t.baseUrl}/mcp`);
  const newClient = () => {
    const client = new Client(
      { name: 'browser-assistant', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    clients.push(client);
    return client;
  };
  const toolsFor = (scopes: string[]) => {
    const ops = t.app.get(V1Operations);
    return TOOLS.filter((tool) =>
      tool.operations.every((id) => scopes.includes(ops.get(id).need.scope as Scope)),
    )
      .map((tool) => tool.name)
      .sort();
  };

  /**
   * The person's part: open the authorization URL in the browser (signing in if asked), check which scopes are
   * offered and which are ticked, choose test data, Allow. Returns the callback's parameters.
   */
  async function consent(url: URL, offered: Record<string, boolean>, shot: string): Promise<URLSearchParams> {
    const page = await person.newPage();
    const before = host.received.length;
    await page.goto(url.toString());
    const heading = page.getByRole('heading', { name: /Connect Browser Assistant/ });
    const email = page.getByLabel('E-mail');
    await heading.or(email).first().waitFor();
    if (await email.isVisible()) {
      await email.fill(admin.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await heading.waitFor();
    const boxes = await page.locator('input[type="checkbox"][name^="scope:"]').evaluateAll((els) =>
      Object.fromEntries(
        els.map((e) => {
          const box = e as unknown as { name: string; checked: boolean };
          return [box.name.slice('scope:'.length), box.checked];
        }),
      ),
    );
    expect(boxes).toEqual(offered);
    await page.getByLabel('Test data (sandbox)').check();
    await page.screenshot({ path: join(ARTEFACTS, shot), fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Connected' }).waitFor();
    await page.close();
    expect(host.received.length).toBe(before + 1);
    return host.received.at(-1)!.searchParams;
  }

  it('401 → registration with a scope → consent → token → tools; step-up on a 403; destructive unticked', async () => {
    const provider = new MemoryProvider(callback);

    // 1. The first call is a 401; the SDK discovers, registers (with the challenge's scope) and asks the person.
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(
      (async () => {
        const client = newClient();
        await client.connect(first);
        await client.listTools();
      })(),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const clientId = provider.client!.client_id;
    expect(sorted((provider.client as { scope?: string }).scope)).toEqual([...DEFAULT_SCOPES].sort());
    const [row] = await t.app
      .get(DataSource)
      .query(`SELECT source, name FROM oauth.client WHERE client_id = $1`, [clientId]);
    expect(row).toEqual({ source: 'dcr', name: 'Browser Assistant' });
    const asked = provider.authorizationUrl!;
    expect(asked.searchParams.get('resource')).toBe(mcpUrl().toString());
    expect(sorted(asked.searchParams.get('scope')!)).toEqual([...DEFAULT_SCOPES].sort());

    const granted = await consent(
      asked,
      Object.fromEntries(DEFAULT_SCOPES.map((s) => [s, true])),
      '1-consent-default-scopes.png',
    );
    await first.finishAuth(granted);
    expect(sorted(provider.saved!.scope)).toEqual([...DEFAULT_SCOPES].sort());

    const reader = newClient();
    const second = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await reader.connect(second);
    const readTools = (await reader.listTools()).tools.map((x) => x.name).sort();
    expect(readTools).toEqual(toolsFor([...DEFAULT_SCOPES]));
    expect(readTools).not.toContain('invite_visitor');
    expect((await reader.callTool({ name: 'list_sites', arguments: {} })).isError).toBeFalsy();

    // 2. A write tool outside the grant: 403 insufficient_scope; the SDK asks the person for the union of scopes.
    const key = await org.key();
    const host = (
      await call(t.app, 'POST', '/v1/people', {
        key,
        body: { name: 'Ama Host', email: 'ama@assistant.test' },
      })
    ).json().id as string;
    const invite = {
      site_id: org.sites.find((s) => !s.livemode)!.id,
      host_id: host,
      type: 'meeting',
      visitor: { name: 'Kofi Boateng', phone: '+233244123456' },
    };
    await expect(reader.callTool({ name: 'invite_visitor', arguments: invite })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const stepUp = provider.authorizationUrl!;
    expect(stepUp).not.toBe(asked);
    const widened = [...DEFAULT_SCOPES, 'visits:write'];
    expect(sorted(stepUp.searchParams.get('scope')!)).toEqual([...widened].sort());
    await second.finishAuth(
      await consent(stepUp, Object.fromEntries(widened.map((s) => [s, true])), '2-consent-step-up.png'),
    );
    expect(sorted(provider.saved!.scope)).toEqual([...widened].sort());
    const writer = newClient();
    await writer.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    expect((await writer.listTools()).tools.map((x) => x.name).sort()).toEqual(toolsFor(widened));
    const invited = await writer.callTool({ name: 'invite_visitor', arguments: invite });
    expect(invited.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Visit visit_\w+ created/) },
    ]);
    expect(invited.structuredContent).toMatchObject({ status: 'expected', site_id: invite.site_id });

    // 3. The assistant asks for a destructive scope too: offered with its badge, not ticked; not granted.
    const destructive = [...widened, 'people:write'];
    expect(
      await auth(provider, { serverUrl: mcpUrl(), scope: destructive.join(' '), forceReauthorization: true }),
    ).toBe('REDIRECT');
    const withDestructive = provider.authorizationUrl!;
    const answer = await consent(
      withDestructive,
      Object.fromEntries(destructive.map((s) => [s, s !== 'people:write'])),
      '3-consent-destructive-unticked.png',
    );
    expect(
      await auth(provider, {
        serverUrl: mcpUrl(),
        authorizationCode: answer.get('code')!,
        iss: answer.get('iss') ?? undefined,
      }),
    ).toBe('AUTHORIZED');
    expect(sorted(provider.saved!.scope)).toEqual([...widened].sort());
    const last = newClient();
    await last.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    expect((await last.listTools()).tools.map((x) => x.name).sort()).toEqual(toolsFor(widened));
  }, 180_000);
});
