import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import type { TestApp } from '../harness';
import {
  bootOAuthApp,
  createOrg,
  createPerson,
  PASSWORD,
  pkce,
  redirectHost,
  registerApp,
} from '../support/oauth-fixtures';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';

const ARTEFACTS = join(__dirname, '../../test-artifacts/oauth');

/**
 * In a real browser (headless Chromium from test/support/browser.ts, driven by playwright-core), without any test-only shortcut in
 * the pages: a member signs in on the authorization page and is told to wait for an admin; the admin approves the
 * app in the console; the member checks again, unticks one scope and allows; the app receives a code. One
 * screenshot of each page is saved under test-artifacts/oauth.
 */
describe('authorization pages in a real browser', () => {
  let t: TestApp & { baseUrl: string };
  let browser: Browser;
  let host: Awaited<ReturnType<typeof redirectHost>>;
  let callback: string;
  let admin: AccountRow;
  let member: AccountRow;

  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    host = await redirectHost();
    callback = host.url;
    t = await bootOAuthApp();
    const org = await createOrg(t.app, 'pro');
    admin = await createPerson(t, org, 'admin');
    member = await createPerson(t, org, 'member');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await host?.close();
  });

  it('member waits, admin approves in the console, member consents with one scope unticked', async () => {
    const app = await registerApp(t, admin, 'public', callback, 'Visitor Board');
    const { challenge } = await pkce();
    const url = new URL('/oauth/authorize', t.baseUrl);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: callback,
      scope: 'visits:read people:read',
      state: 'browser-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);

    const memberPage = await (await browser.newContext()).newPage();
    await memberPage.goto(url.toString());
    await memberPage.getByLabel('E-mail').fill(member.email);
    await memberPage.getByLabel('Password').fill(PASSWORD);
    await memberPage.screenshot({ path: join(ARTEFACTS, '1-sign-in.png'), fullPage: true });
    await memberPage.getByRole('button', { name: 'Sign in' }).click();
    await memberPage.getByRole('heading', { name: "Waiting for your admin's approval" }).waitFor();
    await memberPage.screenshot({ path: join(ARTEFACTS, '2-waiting-for-approval.png'), fullPage: true });

    const adminContext = await browser.newContext();
    const adminPage = await adminContext.newPage();
    await adminPage.goto(`${t.baseUrl}/console/sign-in?next=/console/apps`);
    await adminPage.getByLabel('E-mail').fill(admin.email);
    await adminPage.getByLabel('Password').fill(PASSWORD);
    await adminPage.getByRole('button', { name: 'Sign in' }).click();
    await adminPage.waitForURL(/\/console\/apps/);
    const row = adminPage.getByRole('row', { name: /Visitor Board/ });
    await row.getByText('pending').waitFor();
    await adminPage.screenshot({ path: join(ARTEFACTS, '3-admin-pending-app.png'), fullPage: true });
    await row.getByRole('button', { name: 'Approve' }).click();
    await adminPage
      .getByRole('row', { name: /Visitor Board/ })
      .getByText('approved')
      .waitFor();

    await memberPage.getByRole('link', { name: 'Check again' }).click();
    await memberPage.getByRole('heading', { name: /Connect Visitor Board/ }).waitFor();
    await memberPage.getByLabel(/See hosts and employees/).uncheck();
    await memberPage.getByLabel('Test data (sandbox)').check();
    await memberPage.screenshot({ path: join(ARTEFACTS, '4-consent.png'), fullPage: true });
    await memberPage.getByRole('button', { name: 'Allow' }).click();
    await memberPage.getByRole('heading', { name: 'Connected' }).waitFor();

    const back = host.received.filter((u) => u.pathname === '/callback').at(-1)!;
    expect(back.searchParams.get('state')).toBe('browser-state');
    expect(back.searchParams.get('code')).toMatch(/^svc_ac_/);
  });
});
