import { randomUUID } from 'node:crypto';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { createOrg } from '../../support/platform-fixtures';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * The console frame in a real browser (issue 31, "Frame" and page 1): sign-in and back, the overview's numbers
 * of the demo organisation, navigation by role, the live/test switch and banner, the plan's default mode, sign-out,
 * and CSRF. Every page seen passes axe-core (no serious or critical violation) and is saved as a screenshot.
 */
describe('console frame and overview in a real browser', () => {
  let c: ConsoleUnderTest;
  let testVisitId: string;
  const operator = { type: 'operator' as const, id: 'test' };

  beforeAll(async () => {
    c = await bootConsole();
    // One test-mode visit today, through the public API with the demo's own test key.
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
        visitor: { name: 'Kofi Boateng', phone: '+233244123456' },
        expected_at: new Date(Date.now() + 60_000).toISOString(),
      }),
    });
    expect({ status: res.status, body: res.status === 201 ? null : await res.text() }).toEqual({
      status: 201,
      body: null,
    });
    testVisitId = ((await res.json()) as { id: string }).id;
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: 'member@demo.gatehouse.test', name: 'Demo Member', role: 'member', password: PASSWORD },
        operator,
      );
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const fetchManual = (path: string, init: RequestInit = {}) =>
    fetch(c.t.baseUrl + path, { redirect: 'manual', ...init });

  it('sends a signed-out browser to the sign-in page and back to the page it asked for', async () => {
    const res = await fetchManual('/console', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/sign-in?next=%2Fconsole');

    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/apps');
    expect(new URL(page.url()).pathname).toBe('/console/apps');
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    expect(await page.title()).toBe('Connected apps · Demo Front Door · Gatehouse');
    await judgePage(page, 'apps');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('refuses a next that leaves the console, and sets the session cookie HttpOnly and SameSite=Lax', async () => {
    const form = await fetchManual('/console/sign-in?next=//evil.example/x');
    const html = await form.text();
    expect(html).toContain('name="next" value=""');
    const { page } = await signIn(c, c.demo.email, c.demo.password, '/console');
    const cookie = (await page.context().cookies()).find((x) => x.name === 'gh_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console', secure: false });
    await page.context().close();
  });

  it("shows the demo's numbers on the overview, in live mode by default (Pro) and in test mode after the switch", async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password);
    expect(new URL(page.url()).pathname).toBe('/console');
    expect(await page.title()).toBe('Overview · Demo Front Door · Gatehouse');
    await expect(page.locator('#plan-name').textContent()).resolves.toBe('Pro');
    await expect(page.locator('.mode-label strong').textContent()).resolves.toBe('Live');
    expect(await page.locator('.test-banner').count()).toBe(0);
    await expect(page.locator('#visits-today').textContent()).resolves.toBe('0');
    await expect(page.locator('#sites').textContent()).resolves.toMatch(
      /Head office.*Main gate, Loading bay/s,
    );
    await judgePage(page, 'overview-live');

    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.locator('.test-banner').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
    await expect(page.locator('.mode-label strong').textContent()).resolves.toBe('Test');
    await expect(page.locator('#visits-today').textContent()).resolves.toBe('1');
    await expect(page.locator('#visits-by-status [data-status="expected"]').textContent()).resolves.toBe('1');
    await expect(page.locator('#events').textContent()).resolves.toContain('visit.created');
    await page.locator('#pending-none').waitFor();
    await page.locator('#failing-none').waitFor();
    await judgePage(page, 'overview');

    // The switch is remembered: another page, and the JSON endpoints, work on test mode too.
    await page.getByRole('link', { name: 'Connected apps' }).click();
    await page.locator('.test-banner').waitFor();
    const cookies = (await page.context().cookies())
      .filter((x) => x.name === 'gh_session' || x.name === 'gh_mode')
      .map((x) => `${x.name}=${x.value}`)
      .join('; ');
    expect(
      (await fetchManual(`/console/visits/${testVisitId}`, { headers: { cookie: cookies } })).status,
    ).toBe(200);
    const session = cookies.split('; ').find((x) => x.startsWith('gh_session='))!;
    expect(
      (await fetchManual(`/console/visits/${testVisitId}`, { headers: { cookie: session } })).status,
    ).toBe(404);
    expect(
      (await fetchManual(`/console/visits/${testVisitId}?mode=test`, { headers: { cookie: session } }))
        .status,
    ).toBe(200);

    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    await page.locator('.mode-label strong', { hasText: 'Live' }).waitFor();
    expect(await page.locator('.test-banner').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a member only the pages their role allows, and lands them on one even when next names another', async () => {
    const owner = await signIn(c, c.demo.email, c.demo.password);
    const ownerNav = await owner.page.locator('nav.console-nav a').allTextContents();
    expect(ownerNav).toEqual(expect.arrayContaining(['Overview', 'Connected apps']));
    await owner.page.context().close();

    const member = await signIn(c, 'member@demo.gatehouse.test', PASSWORD, '/console/apps');
    expect(new URL(member.page.url()).pathname).toBe('/console');
    const memberNav = await member.page.locator('nav.console-nav a').allTextContents();
    expect(memberNav).toContain('Overview');
    expect(memberNav).not.toContain('Connected apps');
    await expect(member.page.locator('.person').textContent()).resolves.toContain('member');
    await judgePage(member.page, 'overview-member');
    // The page itself checks the role too.
    const res = await member.page.goto(`${c.t.baseUrl}/console/apps`);
    expect(res!.status()).toBe(403);
    await member.page.context().close();
  });

  it('opens in test mode, with the banner, for an organisation whose plan has no live access', async () => {
    const org = await createOrg(c.t.app, 'free');
    await c.t.app
      .get(AccountsService)
      .create(
        org.id,
        { email: 'owner@free.test', name: 'Free Owner', role: 'owner', password: PASSWORD },
        operator,
      );
    const { page } = await signIn(c, 'owner@free.test', PASSWORD);
    await page.locator('.test-banner').waitFor();
    await expect(page.locator('.mode-label strong').textContent()).resolves.toBe('Test');
    await expect(page.locator('#plan-name').textContent()).resolves.toBe('Free');
    await judgePage(page, 'overview-free-plan');
    await page.context().close();
  });

  it('signs out: the session ends and the console asks for sign-in again', async () => {
    const { page } = await signIn(c, c.demo.email, c.demo.password);
    const session = (await page.context().cookies()).find((x) => x.name === 'gh_session')!.value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/sign-in\?notice=signed-out/);
    await page.getByText('You are signed out.').waitFor();
    await judgePage(page, 'sign-in');
    await page.goto(`${c.t.baseUrl}/console`);
    await page.waitForURL(/\/console\/sign-in\?next=%2Fconsole/);
    // The old token is dead on the server, not only forgotten by the browser.
    expect(
      (await fetchManual('/console/session', { headers: { cookie: `gh_session=${session}` } })).status,
    ).toBe(401);
    await page.context().close();
  });

  it('refuses the frame forms without their CSRF token', async () => {
    const { page } = await signIn(c, c.demo.email, c.demo.password);
    const cookie = (await page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; ');
    for (const path of ['/console/mode', '/console/sign-out']) {
      const res = await fetchManual(path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'mode=test&back=%2Fconsole',
      });
      expect(res.status).toBe(403);
    }
    // The confirmation step of a destructive action is a page of its own; an unknown app has none.
    expect((await fetchManual('/console/apps/nope/revoke', { headers: { cookie } })).status).toBe(404);
    // Nothing changed: still signed in, still live.
    await page.reload();
    await expect(page.locator('.mode-label strong').textContent()).resolves.toBe('Live');
    await page.context().close();
  });

  it('serves htmx from the app under the console CSP (script-src self, no inline script)', async () => {
    const js = await fetchManual('/assets/htmx.min.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    const page = await fetchManual('/console/sign-in');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });
});
