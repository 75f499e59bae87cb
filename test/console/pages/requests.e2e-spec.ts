import { randomUUID } from 'node:crypto';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { DeliveryService } from '../../../src/visitor/webhooks/delivery/delivery.service';
import { createOrg } from '../../support/platform-fixtures';
import { PASSWORD } from '../../support/oauth-fixtures';
import { bootConsole, ConsoleUnderTest, createDemoVisit, judgePage, signIn } from './console-browser';

/**
 * `/console/requests` and `/console/requests/{req_id}` in a real browser (issue 31 page 13): the demo owner finds a
 * failed /v1 request of their organisation by filter and opens it (credential redacted, code, request id, the
 * events a successful request recorded); a support account finds another organisation's failed requests by public
 * error ref and by request id, and searches by organisation and status; an owner cannot see another organisation's
 * request, and a member cannot open the page.
 */
describe('console request log pages in a real browser', () => {
  let c: ConsoleUnderTest;
  const operator = { type: 'operator' as const, id: 'test' };

  beforeAll(async () => {
    c = await bootConsole();
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const v1 = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${c.t.baseUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  it("finds its own failed request by filter, opens it, and sees a POST's events", async () => {
    const failed = await v1(c.demo.key, '/v1/visits/visit_doesnotexist000000000');
    expect(failed.status).toBe(404);
    const failedId = failed.headers.get('svc-request-id')!;
    const created = await createDemoVisit(c, 'Esi Owusu', '+233244123458');
    expect(created.status).toBe(201);
    const createdId = created.headers.get('svc-request-id')!;

    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/requests');
    expect(new URL(page.url()).pathname).toBe('/console/requests');
    // The demo key is a test key: its requests are in test mode.
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.locator('.test-banner').waitFor();
    expect(await page.title()).toBe('Requests · Demo Front Door · Gatehouse');
    await page.locator(`tr[data-request="${failedId}"]`).waitFor();
    await judgePage(page, 'requests');

    await page.getByLabel('Status').selectOption('4xx');
    await page.getByLabel('Path contains').fill('/v1/visits/visit_');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=4xx/);
    const rows = await page
      .locator('#requests tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-request')));
    expect(rows).toEqual([failedId]);
    await judgePage(page, 'requests-filtered');

    await page.getByRole('link', { name: failedId }).click();
    await page.waitForURL(new RegExp(`/console/requests/${failedId}$`));
    await expect(page.locator('#request-status').textContent()).resolves.toBe('404');
    await expect(page.locator('#request-code').textContent()).resolves.toBe('not_found');
    const credential = await page.locator('#request-credential').textContent();
    expect(credential).toMatch(/^\w+_\w{4}…$/);
    expect(await page.content()).not.toContain(c.demo.key);
    await judgePage(page, 'request');

    await page.goto(`${c.t.baseUrl}/console/requests/${createdId}`);
    await expect(page.locator('#request-events').textContent()).resolves.toContain('visit.created');
    // The credential filter takes the redacted form as shown.
    await page.goto(
      `${c.t.baseUrl}/console/requests?credential=${encodeURIComponent(credential!)}&status=2xx`,
    );
    await page.locator(`tr[data-request="${createdId}"]`).waitFor();
    expect(await page.locator(`tr[data-request="${failedId}"]`).count()).toBe(0);
    // A bad date is an error shown with its request id.
    await page.goto(`${c.t.baseUrl}/console/requests?from=yesterday`);
    await expect(page.locator('.notice[role="alert"]').textContent()).resolves.toMatch(
      /YYYY-MM-DD[\s\S]*Request id req_/,
    );
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('links the events a request recorded, and their deliveries, by its request id, not by time', async () => {
    // The endpoint's host resolves to a public address (its deliveries stay pending: no worker runs here).
    c.t.app.get(DeliveryService).resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const endpoint = await v1(c.demo.key, '/v1/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: 'https://public.example/h', enabled_events: ['visit.created'] }),
    });
    expect(endpoint.status).toBe(201);
    const whep = ((await endpoint.json()) as { id: string }).id;
    // Two visits created at the same time: each request links its own event only.
    const created = await Promise.all([
      createDemoVisit(c, 'Kofi Together', '+233244123461'),
      createDemoVisit(c, 'Abena Together', '+233244123462'),
    ]);
    expect(created.map((r) => r.status)).toEqual([201, 201]);
    const requestIds = created.map((r) => r.headers.get('svc-request-id')!);
    const visitIds = await Promise.all(created.map(async (r) => ((await r.json()) as { id: string }).id));
    // The events as /v1 serves them: the request id stays internal, the payload is as before.
    const listed = (await (await v1(c.demo.key, '/v1/events?type=visit.created&limit=100')).json()) as {
      data: { id: string; data: { object: { id: string } } }[];
    };
    const eventIds = visitIds.map((v) => listed.data.find((e) => e.data.object.id === v)!.id);
    for (const e of listed.data.filter((x) => eventIds.includes(x.id))) {
      expect(Object.keys(e).sort()).toEqual([
        'created_at',
        'data',
        'id',
        'livemode',
        'organisation_id',
        'type',
      ]);
      expect(JSON.stringify(e)).not.toMatch(/req_/);
    }

    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/requests?mode=test');
    for (const [i, requestId] of requestIds.entries()) {
      await page.goto(`${c.t.baseUrl}/console/requests/${requestId}?mode=test`);
      const shown = await page
        .locator('#request-events tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event')));
      expect(shown).toContain(eventIds[i]);
      expect(shown).not.toContain(eventIds[1 - i]);
      // Its delivery to the endpoint, through the event.
      await page.locator(`tr[data-event="${eventIds[i]}"] a[href="/console/webhooks/${whep}"]`).waitFor();
    }
    await judgePage(page, 'request-events');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("lets support find another organisation's failed requests by error ref and id; owners and members cannot", async () => {
    const other = await createOrg(c.t.app, 'pro');
    const otherKey = await other.key();
    const failed = await v1(otherKey, '/v1/visits', { method: 'POST', body: JSON.stringify({}) });
    expect(failed.status).toBe(422);
    const otherId = failed.headers.get('svc-request-id')!;
    const publicFail = await fetch(`${c.t.baseUrl}/public/v1/campaigns/does-not-exist`);
    expect(publicFail.status).toBeGreaterThanOrEqual(400);
    const ref = ((await publicFail.json()) as { error: { ref: string } }).error.ref;
    expect(ref).toMatch(/^ERR-/);

    // An owner of the demo organisation does not see it, by lookup or by its address.
    const owner = await signIn(c, c.demo.email, c.demo.password, '/console/requests');
    await owner.page.getByLabel('Request id').fill(otherId);
    await owner.page.getByRole('button', { name: 'Look up' }).click();
    await owner.page.locator('#requests-none').waitFor();
    const res = await owner.page.goto(`${c.t.baseUrl}/console/requests/${otherId}`);
    expect(res!.status()).toBe(404);
    await owner.page.context().close();

    const accounts = c.t.app.get(AccountsService);
    await accounts.create(
      c.demo.organisation_id,
      {
        email: 'member.requests@demo.gatehouse.test',
        name: 'Req Member',
        role: 'member',
        password: PASSWORD,
      },
      operator,
    );
    const member = await signIn(c, 'member.requests@demo.gatehouse.test', PASSWORD);
    expect(await member.page.locator('nav.console-nav a', { hasText: 'Requests' }).count()).toBe(0);
    expect((await member.page.goto(`${c.t.baseUrl}/console/requests`))!.status()).toBe(403);
    expect((await member.page.goto(`${c.t.baseUrl}/console/requests/${otherId}`))!.status()).toBe(403);
    await member.page.context().close();

    await accounts.create(
      c.demo.organisation_id,
      { email: 'support@gatehouse.test', name: 'Sam Support', role: 'support', password: PASSWORD },
      operator,
    );
    const support = await signIn(c, 'support@gatehouse.test', PASSWORD);
    await support.page.getByRole('link', { name: 'Requests' }).click();
    await support.page.getByLabel('Request id or error ref').fill(ref.toLowerCase());
    await support.page.getByRole('button', { name: 'Look up' }).click();
    await support.page.locator('#requests tbody tr').first().waitFor();
    await expect(support.page.locator('#requests').textContent()).resolves.toContain(ref);
    await judgePage(support.page, 'requests-support-ref');

    await support.page.getByLabel('Request id or error ref').fill(otherId);
    await support.page.getByRole('button', { name: 'Look up' }).click();
    await support.page.locator(`tr[data-request="${otherId}"]`).waitFor();
    await support.page.getByRole('link', { name: otherId }).click();
    await expect(support.page.locator('#request-code').textContent()).resolves.toBe('validation_failed');
    await judgePage(support.page, 'request-support');

    await support.page.goto(`${c.t.baseUrl}/console/requests?organisation=${other.id}&status=failed`);
    const found = await support.page
      .locator('#requests tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-request')));
    expect(found).toEqual([otherId]);
    await support.page.context().close();
  }, 120_000);
});
