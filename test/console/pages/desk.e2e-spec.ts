import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, createDemoVisit, judgePage, signIn } from './console-browser';

/**
 * `/console/desk` in a real browser (issue 31 page 6): deliveries recorded, collected and returned; the watchlist
 * (Owners and Admins) with a match of a /v1 visit and its explanation; a roll call started, marked (its progress
 * changing in another tab without a reload), closed and printed; a member sees no watchlist and is refused there.
 */
describe('console front desk in a real browser', () => {
  let c: ConsoleUnderTest;
  const operator = { type: 'operator' as const, id: 'test' };
  const MEMBER = 'desk-member@demo.gatehouse.test';
  const phone = () => `+23324${Math.floor(1_000_000 + Math.random() * 8_999_999)}`;

  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${c.t.baseUrl}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${c.demo.key}`,
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const audit = (targetId: string) =>
    c.t.app.get(DataSource).query(
      `SELECT action, actor_type, request_id IS NOT NULL AS has_request FROM visitor.audit_event
          WHERE target_id = $1 ORDER BY created_at`,
      [targetId],
    );
  const cookieOf = async (page: Page) =>
    (await page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; ');

  beforeAll(async () => {
    c = await bootConsole();
    await c.t.app
      .get(AccountsService)
      .create(
        c.demo.organisation_id,
        { email: MEMBER, name: 'Desk Member', role: 'member', password: PASSWORD },
        operator,
      );
  }, 180_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('records a delivery, marks it collected, records another and returns it to the sender', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/desk?mode=test');
    expect(new URL(page.url()).pathname).toBe('/console/desk');
    expect(await page.title()).toBe('Front desk · Demo Front Door · Gatehouse');
    expect(await page.locator('nav.console-nav a[aria-current="page"]').textContent()).toBe('Front desk');
    await page.locator('#deliveries-none').waitFor();
    await judgePage(page, 'desk');

    const record = async (carrier: string, tracking: string) => {
      await page.getByLabel('For', { exact: true }).selectOption(c.demo.host_id!);
      await page.getByLabel('Carrier').fill(carrier);
      await page.getByLabel('Tracking number').fill(tracking);
      await page.getByLabel('Description').fill('One parcel');
      await page.getByRole('button', { name: 'Record delivery' }).click();
      await page.getByText('Delivery recorded').waitFor();
      const row = page.locator('#deliveries tbody tr', { hasText: tracking });
      await expect(row.locator('.badge').textContent()).resolves.toBe('Waiting');
      return (await row.getAttribute('data-delivery'))!;
    };

    const first = await record('DHL', 'TRK-DESK-1');
    await page.locator(`tr[data-delivery="${first}"]`).getByRole('button', { name: 'Collected' }).click();
    await page.getByText('Delivery marked collected.').waitFor();
    // Waiting deliveries only by default: the collected one left the list, and shows under Collected.
    expect(await page.locator(`tr[data-delivery="${first}"]`).count()).toBe(0);
    await page.getByLabel('Status').selectOption('collected');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect(page.locator(`tr[data-delivery="${first}"] .badge`).textContent()).resolves.toBe(
      'Collected',
    );

    await page.goto(`${c.t.baseUrl}/console/desk?mode=test`);
    const second = await record('UPS', 'TRK-DESK-2');
    await page
      .locator(`tr[data-delivery="${second}"]`)
      .getByRole('link', { name: 'Return to sender…' })
      .click();
    await page.getByRole('heading', { name: 'Return the delivery to its sender?' }).waitFor();
    await judgePage(page, 'desk-return');
    await page.getByLabel('Reason').fill('Recipient left the company');
    await page.getByRole('button', { name: 'Return to sender' }).click();
    await page.getByText('Delivery returned to the sender.').waitFor();
    expect(await page.locator(`tr[data-delivery="${second}"]`).count()).toBe(0);

    // The same service as /v1: the states are there, and each change is audited with its request.
    expect((await v1('GET', `/deliveries/${first}`)).body).toMatchObject({ status: 'collected' });
    expect((await v1('GET', `/deliveries/${second}`)).body).toMatchObject({
      status: 'returned',
      return_reason: 'Recipient left the company',
    });
    expect(await audit(first)).toEqual([
      { action: 'delivery.recorded', actor_type: 'console_account', has_request: true },
      { action: 'delivery.collected', actor_type: 'console_account', has_request: true },
    ]);
    expect(await audit(second)).toEqual([
      { action: 'delivery.recorded', actor_type: 'console_account', has_request: true },
      { action: 'delivery.returned', actor_type: 'console_account', has_request: true },
    ]);

    // A second collect (a stale tab) is refused by the service; the page says so with the request id.
    const cookie = await cookieOf(page);
    const form = await page.goto(`${c.t.baseUrl}/console/desk?mode=test&status=all`);
    expect(form?.status()).toBe(200);
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const again = await fetch(`${c.t.baseUrl}/console/desk/deliveries/${first}/collect?mode=test`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf! }).toString(),
    });
    expect(again.status).toBe(303);
    await page.goto(c.t.baseUrl + again.headers.get('location')!);
    await expect(page.locator('.notice[role="alert"]').textContent()).resolves.toContain('changed meanwhile');
    await expect(page.locator('.notice code').textContent()).resolves.toMatch(/^req_/);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('adds a watchlist entry, shows the match of a /v1 visit with its explanation, and removes the entry', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/desk?mode=test');
    await page.locator('.desk-tabs').getByRole('link', { name: 'Watchlist' }).click();
    await page.waitForURL(/\/console\/desk\/watchlist/);
    expect(await page.title()).toBe('Watchlist · Demo Front Door · Gatehouse');
    await page.locator('#entries-none').waitFor();
    await judgePage(page, 'desk-watchlist-empty');

    await page.getByLabel('Name', { exact: true }).fill('Yaw Boakye');
    await page.getByLabel('Other names').fill('Yaw Boakye Junior');
    await page.getByLabel('Reason').fill('Threatened reception staff');
    await page.getByLabel('Severity').selectOption('high');
    await page.getByRole('button', { name: 'Add to the watchlist' }).click();
    await page.getByText('Yaw Boakye added to the watchlist.').waitFor();
    const entry = (await page.locator('#entries tbody tr').first().getAttribute('data-entry'))!;
    expect(entry).toMatch(/^watch_/);

    // A bad entry is refused with each problem and the request id, and nothing is added.
    await page.getByLabel('Name', { exact: true }).fill('Bad Phone');
    await page.getByLabel('Phone').fill('12');
    await page.getByLabel('Reason').fill('Test');
    await page.getByRole('button', { name: 'Add to the watchlist' }).click();
    await page.locator('#add-errors').waitFor();
    await expect(page.locator('#add-errors').textContent()).resolves.toContain('phone');
    await expect(page.locator('.notice code').textContent()).resolves.toMatch(/^req_/);
    expect(await page.locator('#entries tbody tr').count()).toBe(1);

    // A visit through /v1 whose visitor spells the name another way is matched; the page explains why.
    const visit = await createDemoVisit(c, 'Yaw Boakyeh', phone());
    expect(visit.status).toBe(201);
    const visitId = ((await visit.json()) as { id: string }).id;
    await page.goto(`${c.t.baseUrl}/console/desk/watchlist?mode=test`);
    const match = page.locator('#matches tbody tr').first();
    await match.waitFor();
    await expect(match.locator('.explanation').textContent()).resolves.toMatch(
      /^name matches name 'Yaw Boakye': Yaw exact; Boakye /,
    );
    await expect(match.locator('td').first().textContent()).resolves.toBe('Yaw Boakye');
    expect(await match.getByRole('link', { name: 'Open the visit' }).getAttribute('href')).toBe(
      `/console/visits/${visitId}?mode=test`,
    );
    // What the visitor gave is not on the page (the explanation quotes the entry's names only).
    expect(await page.content()).not.toContain('Boakyeh');
    await judgePage(page, 'desk-watchlist');

    // The page shows the five latest matches; all of them, newest first, are on the matches page.
    for (let i = 0; i < 5; i++) expect((await createDemoVisit(c, 'Yaw Boakye', phone())).status).toBe(201);
    await page.reload();
    expect(await page.locator('#matches tbody tr').count()).toBe(5);
    await page.getByRole('link', { name: 'All matches' }).click();
    await page.waitForURL(/\/console\/desk\/watchlist\/matches/);
    expect(await page.title()).toBe('Watchlist matches · Demo Front Door · Gatehouse');
    const all = page.locator('#matches tbody tr');
    expect(await all.count()).toBe(6);
    await expect(all.last().locator('.explanation').textContent()).resolves.toContain('Boakye variant');
    await expect(all.first().locator('.explanation').textContent()).resolves.toBe(
      "name matches name 'Yaw Boakye': Yaw exact; Boakye exact",
    );
    await judgePage(page, 'desk-watchlist-matches');
    // Live mode has its own watchlist: none of test mode's entries or matches.
    await page.goto(`${c.t.baseUrl}/console/desk/watchlist?mode=live`);
    await page.locator('#matches-none').waitFor();
    await page.locator('#entries-none').waitFor();
    await page.goto(`${c.t.baseUrl}/console/desk/watchlist/matches?mode=test`);
    await page.getByRole('link', { name: 'Back to the watchlist' }).click();

    await page.locator(`tr[data-entry="${entry}"]`).getByRole('link', { name: 'Remove…' }).click();
    await page.getByRole('heading', { name: 'Remove Yaw Boakye from the watchlist?' }).waitFor();
    await judgePage(page, 'desk-watchlist-remove');
    await page.getByRole('button', { name: 'Remove the entry' }).click();
    await page.getByText('Watchlist entry removed.').waitFor();
    await page.locator('#entries-none').waitFor();
    // The matches stay, naming a removed entry.
    await expect(page.locator('#matches tbody tr td').first().textContent()).resolves.toBe('a removed entry');
    expect((await v1('GET', `/watchlist-entries/${entry}`)).status).toBe(404);
    expect(await audit(entry)).toEqual([
      { action: 'watchlist_entry.added', actor_type: 'console_account', has_request: true },
      { action: 'watchlist_entry.removed', actor_type: 'console_account', has_request: true },
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('starts a roll call, marks people while another tab follows the progress, closes it and prints the list', async () => {
    // Two visitors checked in at the demo site through /v1.
    const names = ['Abena Rollcall', 'Kojo Rollcall'];
    const visitors: string[] = [];
    for (const name of names) {
      const res = await createDemoVisit(c, name, phone());
      const v = (await res.json()) as { id: string; visitor: { id: string } };
      expect((await v1('POST', `/visits/${v.id}/check-in`, {})).body).toMatchObject({ status: 'checked_in' });
      visitors.push(v.visitor.id);
    }
    const { page, problems } = await signIn(
      c,
      c.demo.email,
      c.demo.password,
      '/console/desk/roll-calls?mode=test',
    );
    expect(await page.title()).toBe('Roll calls · Demo Front Door · Gatehouse');
    await page.locator('#rollcalls-none').waitFor();
    await judgePage(page, 'desk-rollcalls');
    await page.getByLabel('Site').selectOption(c.demo.site_id!);
    await page.getByRole('button', { name: 'Start roll call' }).click();
    await page.getByText('Roll call started').waitFor();
    const rollcallPath = new URL(page.url()).pathname;
    const rollcallId = rollcallPath.split('/').pop()!;
    expect(rollcallId).toMatch(/^rollcall_/);
    await expect(page.locator('#total').textContent()).resolves.toBe('2');
    await expect(page.locator('#accounted').textContent()).resolves.toBe('0');
    for (const v of visitors) await page.locator(`tr[data-subject="${v}"]`).waitFor();
    await judgePage(page, 'desk-rollcall');

    // A second roll call at the same site is refused while this one runs; the list page says so with the id.
    await page.goto(`${c.t.baseUrl}/console/desk/roll-calls?mode=test`);
    await page.getByRole('button', { name: 'Start roll call' }).click();
    await page.locator('.notice[role="alert"]').waitFor();
    await expect(page.locator('.notice').textContent()).resolves.toContain('already active');
    await expect(page.locator('.notice code').textContent()).resolves.toMatch(/^req_/);
    expect(await page.locator('#rollcalls tbody tr').count()).toBe(1);

    // Another tab shows the roll call; its progress follows the marks made here without a reload (htmx polling).
    const watcher = await page.context().newPage();
    watcher.on('console', (m) => {
      if (m.type() === 'error') problems.push(`watcher: ${m.text()}`);
    });
    watcher.on('pageerror', (e) => problems.push(`watcher: ${e.message}`));
    await watcher.goto(`${c.t.baseUrl}${rollcallPath}?mode=test`);
    await expect(watcher.locator('#accounted').textContent()).resolves.toBe('0');
    await page.goto(`${c.t.baseUrl}${rollcallPath}?mode=test`);
    await page.locator(`tr[data-subject="${visitors[0]}"]`).getByRole('button', { name: 'Safe' }).click();
    await page.getByText('Marked.').waitFor();
    await expect(page.locator(`tr[data-subject="${visitors[0]}"] .badge`).textContent()).resolves.toBe(
      'Safe',
    );
    await watcher.locator('#accounted', { hasText: '1' }).waitFor({ timeout: 20_000 });
    const second = page.locator(`tr[data-subject="${visitors[1]}"]`);
    await second.getByLabel(/Note on/).fill('Twisted ankle, east stairs');
    await second.getByRole('button', { name: 'Needs help' }).click();
    await page.getByText('Marked.').waitFor();
    await watcher.locator('#accounted', { hasText: '2' }).waitFor({ timeout: 20_000 });
    await expect(watcher.locator('[data-count="needs_help"] strong').textContent()).resolves.toBe('1');
    // Without JavaScript the Refresh link reads the same.
    await page.getByRole('link', { name: 'Refresh' }).click();
    await expect(page.locator('[data-count="safe"] strong').textContent()).resolves.toBe('1');
    await watcher.close();

    // The printable list: a plain page, no console navigation; in print the link back is hidden too.
    await page.getByRole('link', { name: 'Printable list' }).click();
    await page.waitForURL(/\/print\?/);
    expect(await page.locator('nav').count()).toBe(0);
    await expect(page.locator('#print-people').textContent()).resolves.toContain(
      'Twisted ankle, east stairs',
    );
    for (const n of names) await page.getByRole('rowheader', { name: n }).waitFor();
    await expect(page.locator('#print-progress').textContent()).resolves.toContain('2 of 2 accounted for');
    await judgePage(page, 'desk-rollcall-print');
    expect(await page.locator('.screen-only').isVisible()).toBe(true);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.screen-only').isVisible()).toBe(false);
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('link', { name: 'Back to the roll call' }).click();
    await page.getByRole('link', { name: 'Close the roll call…' }).click();
    await page.getByRole('heading', { name: 'Close the roll call?' }).waitFor();
    await page.getByRole('button', { name: 'Close the roll call' }).click();
    await page.getByText('Roll call closed.').waitFor();
    await expect(page.locator('#rollcall-status').textContent()).resolves.toBe('Closed');
    expect(await page.locator('#people button').count()).toBe(0);
    expect(await page.locator('#rollcall-progress[hx-get]').count()).toBe(0);
    await judgePage(page, 'desk-rollcall-closed');

    expect((await v1('GET', `/rollcalls/${rollcallId}`)).body).toMatchObject({
      status: 'closed',
      progress: { total: 2, unaccounted: 0, safe: 1, missing: 0, needs_help: 1 },
    });
    expect((await audit(rollcallId)).map((r: { action: string }) => r.action)).toEqual([
      'rollcall.started',
      'rollcall.person_marked',
      'rollcall.person_marked',
      'rollcall.closed',
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a member the deliveries and roll calls but no watchlist, and refuses their watchlist actions', async () => {
    const { page } = await signIn(c, MEMBER, PASSWORD, '/console/desk?mode=test');
    expect(new URL(page.url()).pathname).toBe('/console/desk');
    const tabs = await page.locator('.desk-tabs a').allTextContents();
    expect(tabs).toEqual(['Deliveries', 'Roll calls']);
    expect(await page.getByText('Watchlist').count()).toBe(0);
    // Members run the front door: they may record deliveries.
    await page.getByRole('button', { name: 'Record delivery' }).waitFor();
    await judgePage(page, 'desk-member');

    const before = (await v1('GET', '/watchlist-entries')).body.data as unknown[];
    const cookie = await cookieOf(page);
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
    const opened = await page.goto(`${c.t.baseUrl}/console/desk/watchlist?mode=test`);
    expect(opened?.status()).toBe(403);
    await expect(page.locator('body').textContent()).resolves.toMatch(/req_/);
    for (const path of ['/console/desk/watchlist', '/console/desk/watchlist/matches']) {
      const res = await fetch(`${c.t.baseUrl}${path}?mode=test`, {
        method: path.endsWith('matches') ? 'GET' : 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: path.endsWith('matches')
          ? undefined
          : new URLSearchParams({
              _csrf: csrf,
              name: 'Member Entry',
              reason: 'x',
              severity: 'low',
            }).toString(),
      });
      // Refused for the role (the CSRF token is good), on the HTML error page with the request id.
      expect({ status: res.status, page: await res.text() }).toEqual({
        status: 403,
        page: expect.stringMatching(/The member role cannot do this[\s\S]*req_/),
      });
    }
    expect((await v1('GET', '/watchlist-entries')).body.data).toEqual(before);
    await page.context().close();
  });
});
