import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser';
import type { TestApp } from '../../harness';
import { bootOAuthApp } from '../../support/oauth-fixtures';
import { visitorDemoSeeder } from '../../../src/visitor/demo.seeder';
import type { DemoAccess } from '../../../src/seed/seeder';

/** Screenshots of console pages, one per page (git-ignored: test-artifacts/). */
export const ARTEFACTS = join(__dirname, '../../../test-artifacts/console');

/** axe-core from npm, injected through the DevTools protocol (the pages' CSP allows no inline script). */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsoleUnderTest {
  t: TestApp & { baseUrl: string };
  browser: Browser;
  demo: DemoAccess;
  close(): Promise<void>;
}

/**
 * The real server on a free port with the visitor demo seeded (its owner's password captured), and a browser;
 * `env` adds settings (e.g. the worker and local webhook targets).
 */
export async function bootConsole(env: Record<string, string> = {}): Promise<ConsoleUnderTest> {
  mkdirSync(ARTEFACTS, { recursive: true });
  const t = await bootOAuthApp(env);
  let demo: DemoAccess | undefined;
  await visitorDemoSeeder.run(t.app, { scale: 1, log: () => undefined, onDemoAccess: (a) => (demo = a) });
  if (!demo) throw new Error('the demo seeder gave no access');
  const browser = await launchBrowser();
  return {
    t,
    browser,
    demo,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** A test-mode visit of the demo organisation through /v1 with the demo's test key; the response. */
export async function createDemoVisit(c: ConsoleUnderTest, name: string, phone: string): Promise<Response> {
  return fetch(`${c.t.baseUrl}/v1/visits`, {
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
      visitor: { name, phone },
      expected_at: new Date(Date.now() + 60_000).toISOString(),
    }),
  });
}

/**
 * Signs in through the real sign-in form in a fresh browser context: opens `path` (a console page, which sends the
 * browser to the sign-in page), fills in the form and waits until the browser is back on a console page. Collects
 * CSP violations and page errors into `problems`.
 */
export async function signIn(
  c: ConsoleUnderTest,
  email: string,
  password: string,
  path = '/console',
): Promise<{ page: Page; problems: string[] }> {
  const context = await c.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(c.t.baseUrl + path);
  await page.waitForURL(/\/console\/sign-in\?/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(
    (u) => u.pathname.startsWith('/console') && !u.pathname.startsWith('/console/sign-in'),
  );
  return { page, problems };
}

/**
 * Judges the page in the browser: axe-core finds no serious or critical violation (the list is the failure
 * message), and a full-page screenshot is saved as test-artifacts/console/<name>.png.
 */
export async function judgePage(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run();
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
  expect(violations).toEqual([]);
}
