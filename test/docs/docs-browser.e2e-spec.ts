import { mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { bootTestApp, TestApp } from '../harness';
import { launchBrowser } from '../support/browser';
import { ARTEFACTS, judgePage } from '../console/pages/console-browser';
import { pickEncoding } from '../../src/docs/api-reference';

/** The docs pages in a real browser (axe-core, no serious or critical violation) and the reference's script delivery. */
describe('/docs in a browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    t = await bootTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the reference loads its script from a hashed URL, compressed when accepted and cached as immutable', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/docs/visitor/' })).body;
    const src = /<script src="(\/docs\/assets\/scalar\.[0-9a-f]{16}\.js)"><\/script>/.exec(html)?.[1];
    expect(src).toBeDefined();
    const plain = await t.app.inject({
      method: 'GET',
      url: src!,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(String(plain.headers['content-type'])).toMatch(/^text\/javascript/);
    const br = await t.app.inject({
      method: 'GET',
      url: src!,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    const gz = await t.app.inject({ method: 'GET', url: src!, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // the same script the package serves, so the hash names its content
    const own = await t.app.inject({ method: 'GET', url: '/docs/visitor/js/scalar.js' });
    expect(own.rawPayload.equals(plain.rawPayload)).toBe(true);
    expect(pickEncoding('gzip;q=1, br;q=0')).toBe('gzip');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBeNull();
    expect(pickEncoding(undefined)).toBeNull();
  });

  it.each([
    ['/docs', 'docs-home'],
    ['/docs/quickstart', 'docs-quickstart'],
    ['/docs/webhooks', 'docs-webhooks'],
    ['/docs/errors', 'docs-errors'],
    ['/docs/connect-an-app', 'docs-connect-an-app'],
    ['/docs/connect-an-ai-assistant', 'docs-connect-an-ai-assistant'],
  ])('%s has a language and no serious or critical axe-core violation', async (path, name) => {
    const page = await browser.newPage();
    try {
      const res = await page.goto(base + path);
      expect(res?.status()).toBe(200);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      await judgePage(page, name);
    } finally {
      await page.close();
    }
  });

  // The reference pages are built in the browser by Scalar's script; axe-core judges the whole rendered page,
  // Scalar's interface included (its colours come from assets/reference-theme.css, its ARIA repairs from
  // assets/reference-a11y.js), in the light and the dark scheme.
  it.each([
    ['/docs/visitor/', 'light', 'Verifying webhook signatures'],
    ['/docs/public/', 'light', 'Keys and limits'],
    ['/docs/visitor/', 'dark', 'Verifying webhook signatures'],
  ] as const)(
    'the %s reference (%s scheme) renders from hashed scripts, declares its language, has no serious or critical axe-core violation',
    async (path, scheme, text) => {
      const page = await browser.newPage({ colorScheme: scheme });
      const problems: string[] = [];
      const scripts: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
      });
      try {
        await page.goto(base + path);
        await page.getByText(text).first().waitFor({ state: 'attached', timeout: 20_000 });
        // the sidebar is rendered: its search button, named for a screen reader
        await page.getByRole('button', { name: 'Search' }).waitFor({ timeout: 20_000 });
        expect(await page.getAttribute('html', 'lang')).toBe('en');
        expect(await page.getAttribute('body', 'class')).toContain(`${scheme}-mode`);
        expect(scripts).toEqual([
          expect.stringMatching(/^\/docs\/assets\/scalar\.[0-9a-f]{16}\.js$/),
          expect.stringMatching(/^\/docs\/assets\/reference-a11y\.[0-9a-f]{16}\.js$/),
        ]);
        await judgePage(page, `reference-${path.split('/')[2]}-${scheme}`);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
    90_000,
  );
});
