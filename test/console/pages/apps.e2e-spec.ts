import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { ConnectedAppsService } from '../../../src/visitor/connected-apps/connected-apps.service';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/apps` in a real browser (issue 31 page 12, the parts on this page): a person who connected an app
 * twice (test mode, then live with other scopes) is one row with both modes and every scope in words; the app
 * shows its developer (the host of its Client ID Metadata Document); revoking ends the connections, which are then
 * no longer listed as connected.
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
  afterAll(() => c?.close());

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
});
