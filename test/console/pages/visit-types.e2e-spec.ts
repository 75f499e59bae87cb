import { randomUUID } from 'node:crypto';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/visit-types` in a real browser (issue 31 page 8): types turned off and opened for pre-registration
 * (both modes), a type added, bad input re-rendered with its problems; a question added and marked sensitive,
 * whose answer a member then does not see on the visit's page while the owner does.
 */
describe('console visit types in a real browser', () => {
  let c: ConsoleUnderTest;
  const operator = { type: 'operator' as const, id: 'test' };

  beforeAll(async () => {
    c = await bootConsole();
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: 'member@demo.gatehouse.test', name: 'Demo Member', role: 'member', password: PASSWORD },
        operator,
      );
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const v1 = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${c.t.baseUrl}/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${c.demo.key}`,
        'content-type': 'application/json',
        ...(init.method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  it('turns types on and off, opens one for pre-registration, adds a type, and re-renders bad input', async () => {
    const { page, problems } = await signIn(
      c,
      c.demo.email,
      c.demo.password,
      '/console/visit-types?mode=test',
    );
    expect(await page.title()).toBe('Visit types · Demo Front Door · Gatehouse');
    await judgePage(page, 'visit-types');

    await page.getByRole('button', { name: 'Turn off Contractor' }).click();
    await page.getByText('Saved in live and test mode.').waitFor();
    await expect(
      page.locator('tr[data-type="contractor"] [data-cell="enabled"]').textContent(),
    ).resolves.toBe('Off');
    await page.getByRole('button', { name: 'Open pre-registration of Meeting' }).click();
    await page.getByText('Saved in live and test mode.').waitFor();
    await expect(
      page.locator('tr[data-type="meeting"] [data-cell="pre-registration"]').textContent(),
    ).resolves.toMatch(/^Open/);
    // /v1 sees the same rules: the type that is off is refused on create.
    const off = await v1('/visits', {
      method: 'POST',
      body: {
        site_id: c.demo.site_id,
        host_id: c.demo.host_id,
        type: 'contractor',
        visitor: { name: 'X', phone: '+233244555201' },
      },
    });
    expect(off.status).toBe(422);
    expect(
      ((await (await v1('/visit-types/meeting')).json()) as { pre_registration: boolean }).pre_registration,
    ).toBe(true);

    await page.locator('#t-key').fill('Bad Key');
    await page.getByLabel('Name', { exact: true }).fill('Site survey');
    await page.getByRole('button', { name: 'Add the type' }).click();
    await page.locator('#type-errors').waitFor();
    await expect(page.locator('#type-errors').textContent()).resolves.toContain('key');
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Site survey');
    await expect(page.locator('.notice[role="alert"] code').textContent()).resolves.toMatch(/\S/);
    await judgePage(page, 'visit-types-errors');
    await page.locator('#t-key').fill('site_survey');
    await page.getByRole('button', { name: 'Add the type' }).click();
    await page.locator('tr[data-type="site_survey"]').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('adds a sensitive question; a member does not see its answer, the owner does', async () => {
    const { page } = await signIn(c, c.demo.email, c.demo.password, '/console/visit-types?mode=test');
    // A bad key is refused with the form re-rendered, nothing published.
    await page.getByLabel('Key', { exact: true }).fill('Bad-Key');
    await page.getByRole('button', { name: 'Publish the form' }).click();
    await page.locator('#form-errors').waitFor();
    await page.locator('#questions-none').waitFor();

    await page.getByLabel('Key', { exact: true }).fill('passport');
    await page.getByLabel('Label', { exact: true }).fill('Passport number');
    await page.getByLabel('Sensitive', { exact: true }).check();
    await page.getByRole('button', { name: 'Publish the form' }).click();
    await page.locator('tr[data-question="passport"]').waitFor();
    expect(await page.getByLabel('passport is sensitive').isChecked()).toBe(true);
    await judgePage(page, 'visit-types-form');
    await page.context().close();

    const res = await v1('/visits', {
      method: 'POST',
      body: {
        site_id: c.demo.site_id,
        host_id: c.demo.host_id,
        type: 'meeting',
        visitor: { name: 'Esi Sensitive', phone: '+233244555202' },
        custom_fields: { passport: 'G1234567' },
      },
    });
    expect(res.status).toBe(201);
    const visit = (await res.json()) as { id: string; custom_fields: Record<string, unknown> };
    expect(visit.custom_fields).toEqual({});

    const member = await signIn(
      c,
      'member@demo.gatehouse.test',
      PASSWORD,
      `/console/visits/${visit.id}?mode=test`,
    );
    await member.page.locator('#answers-hidden').waitFor();
    expect(await member.page.content()).not.toContain('G1234567');
    // The member may not open the visit types page at all.
    const forbidden = await member.page.goto(`${c.t.baseUrl}/console/visit-types`);
    expect(forbidden!.status()).toBe(403);
    await member.page.context().close();

    const owner = await signIn(c, c.demo.email, c.demo.password, `/console/visits/${visit.id}?mode=test`);
    await expect(owner.page.locator('[data-answer="passport"]').textContent()).resolves.toBe('G1234567');
    await owner.page.context().close();
  }, 90_000);
});
