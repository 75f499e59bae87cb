import * as oauth from 'oauth4webapi';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { ConnectedAppsService } from '../../../src/visitor/connected-apps/connected-apps.service';
import { OrganisationsService } from '../../../src/visitor/organisations/organisations.service';
import {
  authorize,
  createOrg,
  createPerson,
  discover,
  insecure,
  pkce,
  publicClientToken,
  registerApp,
} from '../../support/oauth-fixtures';
import type { TestOrg } from '../../support/platform-fixtures';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/apps` in a real browser (issue 31 page 12): a person who connected an app twice (test mode, then live
 * with other scopes) is one row with both modes and every scope in words; the app shows its developer (the host of
 * its Client ID Metadata Document); revoking ends the connections, which are then no longer listed as connected. A
 * member's pending request shows the scopes it asks for in words and the developer's organisation; a connection
 * whose tokens the app revoked itself (RFC 7009) is no longer listed as connected.
 */
describe('console connected apps page in a real browser', () => {
  let c: ConsoleUnderTest;
  const app = {
    clientId: 'https://tools.example.org/gatehouse-app.json',
    name: 'Example Desk Tools',
    source: 'metadata_document' as const,
  };

  beforeAll(async () => {
    c = await bootConsole();
    const accounts = c.t.app.get(AccountsService);
    const owner = (await accounts.team(c.demo.organisation_id, 10)).find((p) => p.email === c.demo.email)!;
    const apps = c.t.app.get(ConnectedAppsService);
    await apps.connect(owner, app, { grantId: 'grant_test_1', livemode: false, scopes: ['visits:read'] });
    await apps.connect(owner, app, { grantId: 'grant_test_2', livemode: true, scopes: ['events:read'] });
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('shows one row per person and app, the developer, and nothing connected after revoking', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/apps');
    const row = page.locator('tbody tr', { hasText: 'Example Desk Tools' });
    await expect(row.locator('.developer').textContent()).resolves.toBe('By tools.example.org');
    const connections = row.locator('.connection');
    expect(await connections.count()).toBe(1);
    const text = (await connections.first().textContent())!;
    expect(text).toContain('Demo Owner (live and test)');
    expect(text).toContain('See visits');
    expect(text).toContain('See events about what the other scopes let it see');
    await judgePage(page, 'apps-connected');

    await row.getByRole('link', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL((u) => u.pathname === '/console/apps');
    await expect(
      page.locator('tbody tr', { hasText: 'Example Desk Tools' }).textContent(),
    ).resolves.toContain('none');
    expect(
      await page.locator('tbody tr', { hasText: 'Example Desk Tools' }).locator('.connection').count(),
    ).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 180_000);

  it("a pending request shows the scopes asked for in words and the developer's organisation; tokens revoked by RFC 7009 end the connection", async () => {
    // another organisation builds an app and registers it in its console
    const partner = await createOrg(c.t.app, 'pro');
    const partnerName = (await c.t.app.get(OrganisationsService).findOrganisation(partner.id))!.name;
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await registerApp(
      c.t,
      await createPerson(c.t, partner, 'owner'),
      'public',
      redirectUri,
      'Partner Visitor Board',
    );
    // a member of the demo organisation asks to connect it: the request waits for an Owner or Admin
    const member = await createPerson(c.t, { id: c.demo.organisation_id } as TestOrg, 'member');
    const waiting = await authorize(c.t.baseUrl, {
      person: member,
      clientId: registered.client_id,
      redirectUri,
      scope: 'visits:read people:write',
      codeChallenge: (await pkce()).challenge,
      mode: 'test',
    });
    expect(waiting.page).toContain('Waiting for your admin');

    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/apps');
    const row = () => page.locator('tbody tr', { hasText: 'Partner Visitor Board' });
    await expect(row().getByText('pending').count()).resolves.toBe(1);
    await expect(row().locator('.developer').textContent()).resolves.toBe(`By ${partnerName}`);
    await expect(row().locator('ul.asks li').allTextContents()).resolves.toEqual([
      'Add, change and deactivate hosts and employees destructive',
      'See visits',
    ]);
    await judgePage(page, 'apps-pending-request');
    await row().getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((u) => u.pathname === '/console/apps');
    await expect(row().getByText('approved').count()).resolves.toBe(1);
    expect(await row().locator('ul.asks').count()).toBe(0);

    // the member connects now; the app then revokes its own access token (RFC 7009)
    const as = await discover(c.t.baseUrl);
    const tokens = await publicClientToken(c.t.baseUrl, as, {
      person: member,
      clientId: registered.client_id,
      redirectUri,
      scope: 'visits:read',
      mode: 'test',
    });
    await page.reload();
    expect(await row().locator('.connection').count()).toBe(1);
    const client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' } as oauth.Client;
    const revoked = await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure);
    expect(revoked.status).toBe(200);
    // every token of that connection is gone: the access token and the refresh token issued with it
    const call = await fetch(`${c.t.baseUrl}/v1/visits`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(call.status).toBe(401);
    const refreshed = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refresh_token!,
      insecure,
    );
    expect(refreshed.status).toBe(400);
    await page.reload();
    expect(await row().locator('.connection').count()).toBe(0);
    await expect(row().textContent()).resolves.toContain('none');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 180_000);
});
