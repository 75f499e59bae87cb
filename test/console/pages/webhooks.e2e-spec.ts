import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { PASSWORD } from '../../support/oauth-fixtures';
import { until } from '../../support/until';
import { LOCAL_DELIVERY_ENV } from '../../support/webhook-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { bootConsole, ConsoleUnderTest, createDemoVisit, judgePage, signIn } from './console-browser';

/**
 * `/console/webhooks` and `/console/webhooks/{whep_id}` in a real browser (issue 31 page 9): the demo owner adds an
 * endpoint on a local receiver (event picker, secret shown once), sends a test event, sees a real delivery with its
 * attempt, retries it, rotates the secret (overlap shown), disables it (a retry then fails with its request id) and
 * deletes it after confirming; every change is in the audit trail with its request id; a member may not open it.
 */
describe('console webhooks pages in a real browser', () => {
  let c: ConsoleUnderTest;
  let receiver: WebhookReceiver;
  let pg: Client;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    c = await bootConsole({ ...LOCAL_DELIVERY_ENV, RUN_WORKER: 'true' });
    pg = new Client({ connectionString: c.t.db.url });
    await pg.connect();
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await c?.close();
    await receiver?.stop();
  });

  const createVisit = async () =>
    expect((await createDemoVisit(c, 'Ama Mensah', '+233244123457')).status).toBe(201);

  /** Reloads until `selector` shows `text` (a worker delivers in the background). */
  const reloadUntil = (page: Page, selector: string, text: RegExp) =>
    until(async () => {
      await page.reload();
      const s = (await page.locator(selector).allTextContents()).join(' ');
      return text.test(s);
    }, 20_000);

  it('adds an endpoint, test-sends, shows and retries a delivery, rotates, disables and deletes it', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/webhooks');
    expect(new URL(page.url()).pathname).toBe('/console/webhooks');
    // The demo key is a test key: work in test mode, where its events are.
    await page.getByRole('button', { name: 'Switch to test mode' }).click();
    await page.locator('.test-banner').waitFor();
    expect(await page.title()).toBe('Webhooks · Demo Front Door · Gatehouse');
    await expect(page.locator('nav.console-nav a[aria-current="page"]').textContent()).resolves.toBe(
      'Webhooks',
    );
    await judgePage(page, 'webhooks');

    // A form error keeps the choices and names the field, with the request id.
    await page.getByLabel('Endpoint URL').fill('https://example.test/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('#create-errors').textContent()).resolves.toMatch(/events: must list/);
    await expect(page.locator('.notice[role="alert"]').first().textContent()).resolves.toMatch(
      /Request id req_/,
    );

    await page.getByLabel('Endpoint URL').fill(receiver.url('/ok'));
    await page.getByLabel('Description (optional)').fill('Front desk sync');
    await page.getByLabel('visit.created').check();
    await page.getByLabel('pass.sent').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.locator('#signing-secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await expect(page.locator('#endpoints').textContent()).resolves.toContain(receiver.url('/ok'));
    await judgePage(page, 'webhooks-created');
    // Shown once: the list page no longer has it.
    await page.goto(`${c.t.baseUrl}/console/webhooks`);
    expect(await page.locator('#signing-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret!);

    await page.getByRole('link', { name: receiver.url('/ok') }).click();
    await page.waitForURL(/\/console\/webhooks\/whep_/);
    const endpointId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByLabel('Event type').selectOption('visit.created');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.locator('#test-result').textContent()).resolves.toMatch(/succeeded.*204/s);
    expect(receiver.on('/ok').length).toBe(1);
    // The test result is the answer to a POST: back to the endpoint's own page (a reload would send it again).
    await page.goto(`${c.t.baseUrl}/console/webhooks/${endpointId}`);

    // A real event: a visit through /v1 makes visit.created and pass.sent, delivered by the worker.
    await createVisit();
    await reloadUntil(page, '#deliveries', /succeeded[\s\S]*succeeded/);
    await expect(page.locator('#deliveries').textContent()).resolves.toMatch(/#1 .*status 204, \d+ ms/);
    await expect(page.locator('#success-rate').textContent()).resolves.toMatch(/100% \(2 of 2 attempts\)/);
    await judgePage(page, 'webhook');

    const firstRow = page.locator('#deliveries tbody tr').first();
    const deliveryId = await firstRow.getAttribute('data-delivery');
    const before = receiver.on('/ok').length;
    await firstRow.getByRole('button', { name: /Retry/ }).click();
    await page.getByText('Delivery queued to be attempted again now.').waitFor();
    await receiver.waitFor('/ok', before + 1);
    await reloadUntil(page, `tr[data-delivery="${deliveryId}"]`, /#2 /);

    await page.getByRole('link', { name: 'Rotate secret…' }).click();
    await page.getByRole('heading', { name: 'Rotate the signing secret?' }).waitFor();
    await judgePage(page, 'webhook-rotate-confirm');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = await page.locator('#signing-secret').textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expect(page.locator('#overlap').textContent()).resolves.toMatch(/previous secret also signs until/);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Endpoint disabled.').waitFor();
    await expect(page.locator('#endpoint-status').textContent()).resolves.toMatch(/disabled/);
    // A retry to a disabled endpoint fails: the page says so with the failed request's id.
    await page.locator('#deliveries tbody tr').first().getByRole('button', { name: /Retry/ }).click();
    const alert = page.locator('.notice[role="alert"]');
    await expect(alert.textContent()).resolves.toMatch(/Enable it first[\s\S]*Request id req_/);
    await judgePage(page, 'webhook-error');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Endpoint enabled.').waitFor();

    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete the endpoint' }).click();
    await page.getByText('Endpoint deleted.').waitFor();
    await page.locator('#endpoints-none').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();

    // Every change is in the audit trail, with the console request's id and the person.
    const audit = await pg.query<{ action: string; request_id: string | null; actor_type: string }>(
      `SELECT action, request_id, actor_type FROM visitor.audit_event
        WHERE target_type = 'webhook_endpoint' AND target_id = $1 ORDER BY created_at, id`,
      [endpointId],
    );
    expect(audit.rows.map((r) => r.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.test_sent',
      'webhook_delivery.retried',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
      'webhook_endpoint.deleted',
    ]);
    for (const r of audit.rows) {
      expect(r.request_id).toMatch(/^req_/);
      expect(r.actor_type).toBe('console_account');
    }
  }, 120_000);

  it('refuses a member the pages and their actions, and a post without its CSRF token', async () => {
    await c.t.app.get(AccountsService).create(
      c.demo.organisation_id,
      {
        email: 'member.hooks@demo.gatehouse.test',
        name: 'Hook Member',
        role: 'member',
        password: PASSWORD,
      },
      { type: 'operator', id: 'test' },
    );
    const { page } = await signIn(c, 'member.hooks@demo.gatehouse.test', PASSWORD);
    expect(await page.locator('nav.console-nav a', { hasText: 'Webhooks' }).count()).toBe(0);
    const res = await page.goto(`${c.t.baseUrl}/console/webhooks`);
    expect(res!.status()).toBe(403);
    await expect(page.locator('main, body').first().textContent()).resolves.toMatch(/Request id req_/);
    await page.context().close();

    const owner = await signIn(c, c.demo.email, c.demo.password, '/console/webhooks');
    const cookie = (await owner.page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; ');
    const forged = await fetch(`${c.t.baseUrl}/console/webhooks`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `url=${encodeURIComponent(receiver.url('/ok'))}&all=on`,
    });
    expect(forged.status).toBe(403);
    const count = await pg.query(
      `SELECT count(*)::int AS n FROM visitor.webhook_endpoint WHERE deleted_at IS NULL`,
    );
    expect(count.rows[0].n).toBe(0);
    await owner.page.context().close();
  }, 60_000);
});
