import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/visits` and `/console/visits/{id}` in a real browser (issue 31 page 4): a visit made through /v1 with
 * the demo's test key is found in the list (test mode), its page shows the timeline, it is checked in from the
 * page (status, event and audit row follow), the list filters and pages; a member does not see the answer to a
 * sensitive question; the JSON endpoint of the same path keeps answering API clients.
 */
describe('console visits pages in a real browser', () => {
  let c: ConsoleUnderTest;
  let visitId: string;
  const operator = { type: 'operator' as const, id: 'test' };

  const createVisit = async (name: string, custom_fields: Record<string, unknown> = {}) => {
    const res = await fetch(`${c.t.baseUrl}/v1/visits`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${c.demo.key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({
        site_id: c.demo.site_id,
        host_id: c.demo.host_id,
        type: 'meeting',
        visitor: { name, phone: `+23324${Math.floor(1_000_000 + Math.random() * 8_999_999)}` },
        expected_at: new Date(Date.now() + 3_600_000).toISOString(),
        custom_fields,
      }),
    });
    expect({ status: res.status, body: res.status === 201 ? null : await res.text() }).toEqual({
      status: 201,
      body: null,
    });
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    c = await bootConsole();
    await c.t.app.get(FormsService).publishInBothModes(c.demo.organisation_id, 'visit', {
      type: 'object',
      properties: {
        laptop: { type: 'boolean', title: 'Bringing a laptop' },
        id_number: { type: 'string', title: 'ID number', 'x-svc-sensitive': true },
      },
      'x-svc-order': ['laptop', 'id_number'],
    });
    visitId = await createVisit('Adwoa Mensah', { laptop: true, id_number: 'GHA-723301-9' });
    // More than a page (25) of visits, so the list pages.
    for (let i = 0; i < 25; i++) await createVisit(`Pager Visitor ${i}`);
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: 'member@demo.gatehouse.test', name: 'Demo Member', role: 'member', password: PASSWORD },
        operator,
      );
  }, 180_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('finds the /v1 visit in the test-mode list, shows its timeline and answers, and checks it in from its page', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/visits?mode=test');
    // Every CSP violation of the pages from here on, as the browser reports it to the page.
    await page.context().addInitScript(() => {
      type Violation = { effectiveDirective: string; blockedURI: string; sample: string };
      const g = globalThis as unknown as {
        cspViolations: string[];
        document: { addEventListener(type: string, listener: (e: Violation) => void): void };
      };
      g.cspViolations = [];
      g.document.addEventListener('securitypolicyviolation', (e) =>
        g.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`),
      );
    });
    const violations = () =>
      page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/console/visits');
    await page.locator('.test-banner').waitFor();
    expect(await page.title()).toBe('Visits · Demo Front Door · Gatehouse');
    expect(await page.locator('nav.console-nav a[aria-current="page"]').textContent()).toBe('Visits');
    await page.locator(`tr[data-visit="${visitId}"]`).waitFor();
    await judgePage(page, 'visits');
    expect(problems).toEqual([]);

    // Pages by cursor: the next page holds the rest, and Previous comes back.
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/cursor=/);
    expect(await page.locator('#visits tbody tr').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator(`tr[data-visit="${visitId}"]`).count()).toBe(0);
    await page.getByRole('link', { name: 'Previous' }).click();
    await page.locator(`tr[data-visit="${visitId}"]`).waitFor();
    // The pager's htmx swaps (hx-boost) apply no inline style the CSP refuses: neither its indicator style nor the
    // style attributes it would settle (axe-core above leaves empty ones on the filter's inputs, as browser
    // extensions do).
    expect(new URL(page.url()).searchParams.get('cursor')).toBeNull();
    expect(await violations()).toEqual([]);
    expect(problems).toEqual([]);

    // Filters: visitor name (part, any case) and status; the date of today in the organisation's zone.
    await page.getByLabel('Visitor name').fill('adwoa');
    await page.getByLabel('Status').selectOption('expected');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/name=adwoa/);
    expect(await page.locator('#visits tbody tr').count()).toBe(1);
    await page.getByLabel('Status').selectOption('checked_out');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#visits-none').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();

    await page.getByRole('link', { name: 'Adwoa Mensah' }).click();
    await page.waitForURL(new RegExp(`/console/visits/${visitId}`));
    await expect(page.locator('#visit-status').textContent()).resolves.toBe('Expected');
    // The host by name (the demo's host), not by id.
    await expect(page.locator('#visit-host').textContent()).resolves.toBe('Ama Mensah');
    await page.locator('#timeline [data-event="visit.created"]').waitFor();
    await expect(page.locator('[data-answer="id_number"]').textContent()).resolves.toBe('GHA-723301-9');
    await expect(page.locator('[data-answer="laptop"]').textContent()).resolves.toBe('Yes');
    // Only what the state machine allows from expected: check in and cancel.
    const actions = await page.locator('#actions button, #actions a').allTextContents();
    expect(actions.map((a) => a.trim())).toEqual(['Check in', 'Cancel visit…']);
    await judgePage(page, 'visit');

    await page.getByRole('button', { name: 'Check in' }).click();
    await page.getByText('Checked in.').waitFor();
    await expect(page.locator('#visit-status').textContent()).resolves.toBe('Checked in');
    await page.locator('#timeline [data-event="visit.checked_in"]').waitFor();
    const after = await page.locator('#actions button, #actions a').allTextContents();
    expect(after.map((a) => a.trim())).toEqual(['Check out']);
    await judgePage(page, 'visit-checked-in');

    // The same state machine as /v1: the visit is checked in there too, and the change is audited.
    const v1 = await fetch(`${c.t.baseUrl}/v1/visits/${visitId}`, {
      headers: { authorization: `Bearer ${c.demo.key}` },
    });
    expect(((await v1.json()) as { status: string }).status).toBe('checked_in');
    const audit = await c.t.app
      .get(DataSource)
      .query(
        `SELECT action, actor_type, request_id FROM visitor.audit_event WHERE target_id = $1 ORDER BY created_at`,
        [visitId],
      );
    expect(audit).toEqual([
      { action: 'visit.check_in', actor_type: 'console_account', request_id: expect.any(String) },
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('cancels through a confirmation page, and shows a refused action with its request id', async () => {
    const id = await createVisit('Kwame Cancel');
    const { page } = await signIn(c, c.demo.email, c.demo.password, `/console/visits/${id}?mode=test`);
    const stale = await page.context().newPage();
    await stale.goto(`${c.t.baseUrl}/console/visits/${id}?mode=test`);
    await page.getByRole('link', { name: 'Cancel visit…' }).click();
    await page.getByRole('heading', { name: 'Cancel the visit of Kwame Cancel?' }).waitFor();
    await judgePage(page, 'visit-cancel');
    await page.getByLabel('Reason').fill('Meeting moved');
    await page.getByRole('button', { name: 'Cancel the visit' }).click();
    await page.getByText('Cancelled.').waitFor();
    await expect(page.locator('#visit-status').textContent()).resolves.toBe('Cancelled');
    expect(await page.locator('#actions').count()).toBe(0);
    // The other tab still offers check-in: the service refuses it, and the page says so with the request id.
    await stale.getByRole('button', { name: 'Check in' }).click();
    await stale.locator('.notice[role="alert"]').waitFor();
    await expect(stale.locator('.notice').textContent()).resolves.toContain('no longer allows');
    await expect(stale.locator('.notice code').textContent()).resolves.toMatch(/\S+/);
    await expect(stale.locator('#visit-status').textContent()).resolves.toBe('Cancelled');
    await page.context().close();
  });

  it('hides a sensitive answer from a member, who may still check in; the JSON endpoint of the path follows the same rule', async () => {
    const { page } = await signIn(
      c,
      'member@demo.gatehouse.test',
      PASSWORD,
      `/console/visits/${visitId}?mode=test`,
    );
    expect(new URL(page.url()).pathname).toBe(`/console/visits/${visitId}`);
    await expect(page.locator('[data-answer="laptop"]').textContent()).resolves.toBe('Yes');
    expect(await page.locator('[data-answer="id_number"]').count()).toBe(0);
    expect(await page.content()).not.toContain('GHA-723301-9');
    await page.locator('#answers-hidden').waitFor();
    // A member does not manage webhooks: the timeline has no deliveries.
    await page.locator('#timeline [data-event="visit.checked_in"]').waitFor();
    expect(await page.locator('#timeline li ul').count()).toBe(0);
    await judgePage(page, 'visit-member');

    const cookie = (await page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; ');
    const json = await fetch(`${c.t.baseUrl}/console/visits/${visitId}?mode=test`, { headers: { cookie } });
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await json.json()) as { custom_fields: unknown }).custom_fields).toEqual({ laptop: true });
    await page.context().close();
  });

  it('refuses actions without a CSRF token, and to support staff', async () => {
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: 'support@demo.gatehouse.test', name: 'Support', role: 'support', password: PASSWORD },
        operator,
      );
    const id = await createVisit('Ama Csrf');
    const owner = await signIn(c, c.demo.email, c.demo.password, `/console/visits/${id}?mode=test`);
    const cookie = (await owner.page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; ');
    const post = await fetch(`${c.t.baseUrl}/console/visits/${id}/check-in?mode=test`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(post.status).toBe(403);
    await owner.page.reload();
    await expect(owner.page.locator('#visit-status').textContent()).resolves.toBe('Expected');
    await owner.page.context().close();

    // Support may not open visits at all (the page table's roles), nor act on one.
    const support = await signIn(c, 'support@demo.gatehouse.test', PASSWORD);
    const res = await support.page.goto(`${c.t.baseUrl}/console/visits/${id}?mode=test`);
    expect(res!.status()).toBe(403);
    expect(await support.page.locator('nav.console-nav a').allTextContents()).not.toContain('Visits');
    await support.page.context().close();
  });
});
