import { mkdirSync, statSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { bootTestApp, TestApp } from '../harness';
import { until } from '../support/until';
import { call, createOrg } from '../support/platform-fixtures';

/** Where the screenshots are kept after the run (test artefacts). */
const ARTEFACTS = join(__dirname, '../../test-artifacts/screenshots');

/**
 * A real browser (the packaged headless Chromium of test/support/browser.ts, driven by playwright-core) opens the visitor API reference and a pass page:
 * both render, request nothing from another origin (offline), break no CSP rule, and are saved as screenshots.
 */
describe('pages in a headless browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    t = await bootTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function visit(url: string, file: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
        problems.push(`external request ${r.url()}`);
    });
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    const res = await page.goto(`${base}${url}`, { waitUntil: 'networkidle' });
    const path = join(ARTEFACTS, file);
    return {
      page,
      res,
      problems,
      shoot: async () => (await page.screenshot({ path, fullPage: false }), path),
    };
  }

  it('/docs/visitor renders the reference with its guides in the navigation', async () => {
    const v = await visit('/docs/visitor/', 'docs-visitor.png');
    expect(v.res?.status()).toBe(200);
    await v.page.getByText('Verifying webhook signatures').first().waitFor();
    await v.page.getByText('Visitor-management API').first().waitFor();
    const path = await v.shoot();
    expect(statSync(path).size).toBeGreaterThan(10_000);
    expect(v.problems).toEqual([]);
    await v.page.close();
  }, 60_000);

  it('a pass page renders its QR code', async () => {
    const org = await createOrg(t.app);
    const key = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    const host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Mensah', email: 'a@x.test' } })
    ).json().id;
    const visit_ = await call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: host,
        type: 'meeting',
        expected_at: '2030-03-14T09:30:00Z',
        visitor: { name: 'Kofi', phone: '+233244555666' },
      },
    });
    const pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    try {
      const body = await until(async () => {
        const rows = await pg.query(`SELECT body FROM visitor.message WHERE related_id = $1`, [
          visit_.json().id,
        ]);
        return rows.rows[0]?.body as string | undefined;
      });
      const token = /\/passes\/(\S+)/.exec(body)![1];
      const v = await visit(`/passes/${token}`, 'pass-page.png');
      expect(v.res?.status()).toBe(200);
      const qr = await v.page.locator('.qr svg').boundingBox();
      expect(qr!.width).toBeGreaterThan(100);
      await v.shoot();
      expect(v.problems).toEqual([]);
      await v.page.close();
    } finally {
      await pg.end();
    }
  }, 60_000);
});
