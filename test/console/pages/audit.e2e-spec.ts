import { AuditService } from '../../../src/visitor/audit/audit.service';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/audit` in a real browser (issue 31 page 11): a key created on `/console/keys` is listed with the
 * request id and IP of the console request that made it; the filters (actor, action, date) narrow the list and
 * are kept by the cursor pager; a bad filter is a clear error with its request id.
 */
describe('console audit trail page in a real browser', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await bootConsole();
    // 30 entries of one action, to page through.
    const audit = c.t.app.get(AuditService);
    for (let i = 0; i < 30; i++)
      await audit.record({
        organisationId: c.demo.organisation_id,
        livemode: null,
        action: 'test_fixture.recorded',
        actor: { type: 'operator', id: 'test' },
        data: { n: i },
      });
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('lists the key creation with its request id and IP, filters by actor, action and date, and pages', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/keys');
    await page.getByLabel('Name', { exact: true }).fill('Audited key');
    await page.locator('#scope_events_read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    // The page's own request id (footer) is the one the audit entry carries.
    const createRequest = (await page.locator('footer code').textContent())!.trim();

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    expect(await page.title()).toBe('Audit trail · Demo Front Door · Gatehouse');
    await judgePage(page, 'audit');

    await page.getByLabel('Action').fill('api_key.created');
    await page.getByLabel('Actor').selectOption({ label: `Demo Owner (${c.demo.email})` });
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByLabel('To (UTC day, included)').fill(today);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=api_key.created/);
    const rows = page.locator('#entries tbody tr');
    expect(await rows.count()).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('Audited key');
    await expect(rows.first().locator('.request-id').textContent()).resolves.toBe(createRequest);
    await expect(rows.first().locator('.ip').textContent()).resolves.toMatch(/\d/);
    await judgePage(page, 'audit-filtered');

    // Another day: nothing.
    await page.goto(`${c.t.baseUrl}/console/audit?action=api_key.created&to=2020-01-01`);
    await page.locator('#entries-none').waitFor();

    // A bad filter: the error, with its request id.
    await page.goto(`${c.t.baseUrl}/console/audit?action=DROP%20TABLE`);
    await page.getByRole('alert').filter({ hasText: 'must be an action such as api_key.created' }).waitFor();
    await expect(page.locator('.notice .muted code').textContent()).resolves.toMatch(/^req_/);

    // Paging keeps the filter: 30 entries are 25 then 5.
    await page.goto(`${c.t.baseUrl}/console/audit?action=test_fixture.recorded`);
    expect(await rows.count()).toBe(25);
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/cursor=/);
    expect(page.url()).toContain('action=test_fixture.recorded');
    await page.locator('#entries tbody tr').nth(4).waitFor();
    expect(await rows.count()).toBe(5);
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.waitForURL((u) => !u.searchParams.has('cursor'));
    expect(await rows.count()).toBe(25);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 180_000);
});
