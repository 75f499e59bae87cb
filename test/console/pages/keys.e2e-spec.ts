import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { ApiKeysService } from '../../../src/visitor/api-keys/api-keys.service';
import { AuditRepository } from '../../../src/visitor/audit/audit.repository';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/keys` in a real browser (issue 31 page 2): the demo Owner creates a secret test key with the form,
 * the key works against /v1 once shown, revoking it (after the confirmation page) makes the next call
 * `unauthorized`; the creation is audited with the request id and IP; a member sees no key page and a direct
 * POST of the creation form is refused with nothing created.
 */
describe('console API keys page in a real browser', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await bootConsole();
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: 'keys-member@demo.gatehouse.test', name: 'Keys Member', role: 'member', password: PASSWORD },
        { type: 'operator', id: 'test' },
      );
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const v1 = (key: string) =>
    fetch(`${c.t.baseUrl}/v1/visits?limit=1`, { headers: { authorization: `Bearer ${key}` } });

  it('creates a secret test key shown once, which works until it is revoked', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/keys');
    expect(new URL(page.url()).pathname).toBe('/console/keys');
    expect(await page.title()).toBe('API keys · Demo Front Door · Gatehouse');
    await judgePage(page, 'keys');

    // A form with no scope comes back with the error and its request id, nothing created.
    const before = await page.locator('#keys tbody tr').count();
    await page.getByLabel('Name', { exact: true }).fill('No scopes');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').filter({ hasText: 'scopes must list at least one scope' }).waitFor();
    await expect(page.locator('.notice .muted code').textContent()).resolves.toMatch(/\S/);
    expect(await page.locator('#keys tbody tr').count()).toBe(before);
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('No scopes');

    await page.getByLabel('Name', { exact: true }).fill('CI smoke test');
    await page.getByLabel('Secret (servers only)').check();
    await page.getByLabel('Test (sandbox)').check();
    await page.locator('#scope_visits_read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^svc_sk_test_/);
    // The copy button is the progressive enhancement of the served script (no inline script).
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    await judgePage(page, 'keys-created');
    const row = page.locator('#keys tbody tr', { hasText: 'CI smoke test' });
    await expect(row.textContent()).resolves.toMatch(/secret.*test.*visits:read.*Demo/s);
    expect(await row.textContent()).not.toContain(key);

    expect((await v1(key)).status).toBe(200);

    // Shown once: the list never shows it again.
    await page.goto(`${c.t.baseUrl}/console/keys`);
    expect(await page.content()).not.toContain(key);

    await page
      .locator('#keys tbody tr', { hasText: 'CI smoke test' })
      .getByRole('link', { name: /Revoke/ })
      .click();
    await page.getByRole('heading', { name: 'Revoke the key CI smoke test?' }).waitFor();
    await judgePage(page, 'keys-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key is revoked').waitFor();
    await expect(
      page.locator('#keys tbody tr', { hasText: 'CI smoke test' }).textContent(),
    ).resolves.toContain('revoked');

    const after = await v1(key);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { code: string }).code).toBe('unauthorized');
    expect(problems).toEqual([]);
    await page.context().close();

    // Both changes are in the audit trail with the console request's id and IP.
    const rows = (
      await c.t.app.get(AuditRepository).list(c.demo.organisation_id, false, { limit: 100, since: null })
    ).filter((r) => r.action.startsWith('api_key.') && r.actor_type === 'console_account');
    expect(rows.map((r) => r.action).sort()).toEqual(['api_key.created', 'api_key.revoked']);
    for (const r of rows) expect(r).toMatchObject({ request_id: expect.any(String), ip: expect.any(String) });
  }, 180_000);

  it('shows a member no key page, and refuses a direct POST of the creation form', async () => {
    const { page } = await signIn(c, 'keys-member@demo.gatehouse.test', PASSWORD);
    const nav = await page.locator('nav.console-nav a').allTextContents();
    expect(nav).not.toContain('API keys');
    const res = await page.goto(`${c.t.baseUrl}/console/keys`);
    expect(res!.status()).toBe(403);
    expect(await page.locator('form#create-key').count()).toBe(0);

    // A direct POST with a valid CSRF token of the member's own session: refused, nothing created.
    await page.goto(`${c.t.baseUrl}/console`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const count = async () => (await c.t.app.get(ApiKeysService).list(c.demo.organisation_id, 100)).length;
    const n = await count();
    const status = await page.evaluate(async (token) => {
      const r = await fetch('/console/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          _csrf: token,
          name: 'sneaky',
          kind: 'secret',
          mode: 'test',
          scope_visits_read: 'on',
        }).toString(),
      });
      return r.status;
    }, csrf);
    expect(status).toBe(403);
    expect(await count()).toBe(n);
    await page.context().close();
  }, 180_000);
});
