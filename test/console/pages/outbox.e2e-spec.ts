import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PassSender } from '../../../src/visitor/visits/pass.sender';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

/**
 * `/console/outbox` in a real browser (issue 31 page 10): the pass of a visit made with the demo's test key shows up
 * in the test outbox, and its link opens the visitor's pass page.
 */
describe('console test outbox in a real browser', () => {
  let c: ConsoleUnderTest;
  let visitId: string;

  beforeAll(async () => {
    c = await bootConsole();
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
        visitor: { name: 'Yaw Outbox', phone: '+233244555101' },
        expected_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    });
    expect(res.status).toBe(201);
    visitId = ((await res.json()) as { id: string }).id;
    // The test app runs no worker: send the pass as the pass job would.
    const [pass] = (await c.t.app
      .get(DataSource)
      .query(`SELECT id FROM visitor.visit_pass WHERE visit_id = $1`, [visitId])) as { id: string }[];
    expect(await c.t.app.get(PassSender).send(pass.id)).toBeTruthy();
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('lists the pass message of a test visit and opens its pass link', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/outbox');
    expect(new URL(page.url()).pathname).toBe('/console/outbox');
    expect(await page.title()).toBe('Test outbox · Demo Front Door · Gatehouse');
    const row = page.locator('#outbox tbody tr').first();
    await expect(row.textContent()).resolves.toContain('+233244555101');
    expect(await row.locator('a', { hasText: 'The visit' }).getAttribute('href')).toBe(
      `/console/visits/${visitId}?mode=test`,
    );
    await judgePage(page, 'outbox');

    await row.locator('a.pass-link').click();
    await page.waitForURL(/\/passes\//);
    await page.getByRole('heading', { name: /Visitor pass/ }).waitFor();
    await page.getByText('Test mode').first().waitFor();
    await page.getByRole('img', { name: 'QR code of this pass' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
