import type { Page } from 'playwright-core';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

const NEW_PASSWORD = 'a brand new passphrase 42';

/**
 * `/console/account` in a real browser (issue 31 "Security"): the signed-in person and the change-password form.
 * The demo Owner signs in twice (two sessions); a wrong current password is refused with the request id and changes
 * nothing; a right one changes the password, keeps this session and ends the other; the old password no longer
 * signs in, the new one does.
 */
describe('console account page in a real browser', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await bootConsole();
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const changePassword = async (page: Page, current: string, password: string, again = password) => {
    await page.getByLabel('Current password').fill(current);
    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByLabel('New password again').fill(again);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForLoadState();
  };

  /** Tries the real sign-in form in a fresh context; where the browser ends up. */
  const trySignIn = async (password: string) => {
    const page = await (await c.browser.newContext()).newPage();
    await page.goto(`${c.t.baseUrl}/console/sign-in`);
    await page.getByLabel('E-mail').fill(c.demo.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.endsWith('/sign-in') || u.search.includes('notice='));
    const url = new URL(page.url());
    await page.context().close();
    return url;
  };

  it('changes the password: this session stays, the other ends, only the new password signs in', async () => {
    const first = (await signIn(c, c.demo.email, c.demo.password, '/console/account')).page;
    const second = (await signIn(c, c.demo.email, c.demo.password, '/console/account')).page;
    expect(new URL(first.url()).pathname).toBe('/console/account');
    expect(await first.title()).toBe('Your account · Demo Front Door · Gatehouse');
    await expect(first.locator('#account-email').textContent()).resolves.toBe(c.demo.email);
    await expect(first.locator('#account-role').textContent()).resolves.toBe('owner');
    await expect(first.locator('#account-organisation').textContent()).resolves.toBe('Demo Front Door');
    await expect(
      first.locator('header a[href="/console/account"]').getAttribute('aria-current'),
    ).resolves.toBe('page');
    await judgePage(first, 'account');

    // A wrong current password: refused with the request id, nothing changed, both sessions still work.
    await changePassword(first, 'not my password at all', NEW_PASSWORD);
    await first.getByRole('alert').filter({ hasText: 'the current password is not correct' }).waitFor();
    await expect(first.locator('.notice .muted code').textContent()).resolves.toMatch(/\S/);
    await judgePage(first, 'account-wrong-password');
    // New passwords that differ, or a short one: refused as well.
    await changePassword(first, c.demo.password, NEW_PASSWORD, NEW_PASSWORD + 'x');
    await first.getByRole('alert').filter({ hasText: 'the two new passwords differ' }).waitFor();
    // A short one (the browser's minlength would stop it; the server refuses it as well), and no CSRF token.
    const csrf = await first.locator('#password-form input[name="_csrf"]').inputValue();
    const post = (body: Record<string, string>) =>
      first.evaluate(async (b) => {
        const r = await fetch('/console/account/password', { method: 'POST', body: new URLSearchParams(b) });
        return { status: r.status, url: r.url, text: await r.text() };
      }, body);
    const short = await post({
      _csrf: csrf,
      current_password: c.demo.password,
      password: 'short',
      password_again: 'short',
    });
    expect(short.url).toContain('error=short');
    expect(short.text).toContain('the new password must be at least 12 characters');
    const forged = await post({
      current_password: c.demo.password,
      password: NEW_PASSWORD,
      password_again: NEW_PASSWORD,
    });
    expect(forged.status).toBe(403);
    await second.reload();
    expect(new URL(second.url()).pathname).toBe('/console/account');
    expect((await trySignIn(c.demo.password)).pathname).toBe('/console');

    // The right current password: changed; this session stays, the other one ends.
    await first.goto(`${c.t.baseUrl}/console/account`);
    await changePassword(first, c.demo.password, NEW_PASSWORD);
    await first.getByText('Password changed; your other sessions are signed out.').waitFor();
    expect(new URL(first.url()).pathname).toBe('/console/account');
    await judgePage(first, 'account-changed');
    await first.goto(`${c.t.baseUrl}/console/visits`);
    expect(new URL(first.url()).pathname).toBe('/console/visits');

    await second.goto(`${c.t.baseUrl}/console/visits`);
    expect(new URL(second.url()).pathname).toBe('/console/sign-in');
    expect(new URL(second.url()).searchParams.get('next')).toBe('/console/visits');

    const old = await trySignIn(c.demo.password);
    expect(old.pathname).toBe('/console/sign-in');
    expect(old.searchParams.get('notice')).toBe('sign-in');
    expect((await trySignIn(NEW_PASSWORD)).pathname).toBe('/console');

    // The change is in the audit trail.
    await first.goto(`${c.t.baseUrl}/console/audit`);
    await expect(first.locator('main').textContent()).resolves.toContain('console_account.password_reset');
  });

  it('every role that signs in has the page; without a session it asks for sign-in', async () => {
    const res = await fetch(`${c.t.baseUrl}/console/account`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/sign-in?next=%2Fconsole%2Faccount');
  });
});
