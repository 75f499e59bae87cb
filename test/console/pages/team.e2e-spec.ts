import { ApiKeysService } from '../../../src/visitor/api-keys/api-keys.service';
import { MessagesService } from '../../../src/visitor/messages/messages.service';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

const MEMBER = 'new.member@demo.gatehouse.test';
const MEMBER_PASSWORD = 'correct horse battery staple';

/**
 * `/console/team` in a real browser (issue 31 page 3): the demo Owner invites a member by e-mail, the invitation
 * (in the outbox in development) links to a page that sets the password, the member signs in and sees no key
 * page, and a direct POST of the key-creation form is refused with nothing created; the last Owner cannot be
 * demoted or removed (a clear error with its request id); removing the member ends their session.
 */
describe('console team page in a real browser', () => {
  let c: ConsoleUnderTest;

  beforeAll(async () => {
    c = await bootConsole();
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('invites a member who sets a password from the e-mailed link and signs in with a member’s pages only', async () => {
    const owner = await signIn(c, c.demo.email, c.demo.password, '/console/team');
    const page = owner.page;
    expect(await page.title()).toBe('Team · Demo Front Door · Gatehouse');
    await expect(page.locator(`#people tr[data-person="${c.demo.email}"]`).textContent()).resolves.toContain(
      'Owner',
    );
    await judgePage(page, 'team');

    await page.getByLabel('Name', { exact: true }).fill('New Member');
    await page.getByLabel('E-mail', { exact: true }).fill(MEMBER);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('The invitation is sent.').waitFor();
    await expect(page.locator(`#people tr[data-person="${MEMBER}"]`).textContent()).resolves.toMatch(
      /New Member.*Member.*not yet/s,
    );

    // Inviting the same address again: a clear error with the request id, nothing sent twice.
    await page.getByLabel('Name', { exact: true }).fill('Again');
    await page.getByLabel('E-mail', { exact: true }).fill(MEMBER);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('alert').filter({ hasText: 'email is already used' }).waitFor();
    await expect(page.locator('.notice .muted code').textContent()).resolves.toMatch(/\S/);

    const messages = (
      await c.t.app.get(MessagesService).list({ organisationId: c.demo.organisation_id, livemode: true }, 50)
    ).filter((m) => m.recipient === MEMBER);
    expect(messages).toHaveLength(1);
    const link = /(http\S+\/console\/invitation\?token=\S+)/.exec(messages[0].body)![1];

    const invited = await (await c.browser.newContext()).newPage();
    await invited.goto(link);
    await invited.getByRole('heading', { name: 'Set your password' }).waitFor();
    await judgePage(invited, 'team-invitation');
    await invited.getByLabel('New password').fill(MEMBER_PASSWORD);
    await invited.getByLabel('The same password again').fill(MEMBER_PASSWORD);
    await invited.getByRole('button', { name: 'Set password' }).click();
    await invited.getByText('Your password is set.').waitFor();
    // The link works once.
    expect((await invited.goto(link))!.status()).toBe(404);
    await invited.context().close();

    const member = await signIn(c, MEMBER, MEMBER_PASSWORD, '/console/keys');
    // Landed on a page the role allows, never "Not allowed".
    expect(new URL(member.page.url()).pathname).toBe('/console');
    const nav = await member.page.locator('nav.console-nav a').allTextContents();
    expect(nav).not.toContain('API keys');
    expect(nav).not.toContain('Team');
    expect((await member.page.goto(`${c.t.baseUrl}/console/keys`))!.status()).toBe(403);
    expect(await member.page.locator('form#create-key').count()).toBe(0);
    expect((await member.page.goto(`${c.t.baseUrl}/console/team`))!.status()).toBe(403);

    await member.page.goto(`${c.t.baseUrl}/console`);
    const csrf = await member.page.locator('input[name="_csrf"]').first().inputValue();
    const keysBefore = (await c.t.app.get(ApiKeysService).list(c.demo.organisation_id, 100)).length;
    const post = (path: string, body: Record<string, string>) =>
      member.page.evaluate(
        async ([p, b]) =>
          (
            await fetch(p, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams(b).toString(),
              redirect: 'manual',
            })
          ).status,
        [path, { _csrf: csrf, ...body }] as const,
      );
    expect(
      await post('/console/keys', { name: 'x', kind: 'secret', mode: 'test', scope_visits_read: 'on' }),
    ).toBe(403);
    expect(await post('/console/team/invite', { name: 'x', email: 'x@y.test', role: 'owner' })).toBe(403);
    expect((await c.t.app.get(ApiKeysService).list(c.demo.organisation_id, 100)).length).toBe(keysBefore);

    // The Owner removes the member (after the confirmation page): the member's session ends.
    await page.goto(`${c.t.baseUrl}/console/team`);
    await page.getByRole('link', { name: 'Remove New Member…' }).click();
    await page.getByRole('heading', { name: 'Remove New Member?' }).waitFor();
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('no longer has console access').waitFor();
    expect(await page.locator(`#people tr[data-person="${MEMBER}"]`).count()).toBe(0);
    await member.page.goto(`${c.t.baseUrl}/console`);
    await member.page.waitForURL(/\/console\/sign-in\?/);
    expect(owner.problems).toEqual([]);
    await member.page.context().close();
    await page.context().close();
  }, 180_000);

  it('refuses to demote or remove the last Owner, with a clear error and its request id', async () => {
    const { page } = await signIn(c, c.demo.email, c.demo.password, '/console/team');
    const row = page.locator(`#people tr[data-person="${c.demo.email}"]`);
    await row.getByRole('combobox').selectOption('admin');
    await row.getByRole('button', { name: 'Change role' }).click();
    await page.getByRole('alert').filter({ hasText: 'is the last Owner' }).waitFor();
    await expect(page.locator('.notice .muted code').textContent()).resolves.toMatch(/^req_/);
    await expect(row.textContent()).resolves.toContain('Owner');
    await judgePage(page, 'team-last-owner');

    await row.getByRole('link', { name: /^Remove/ }).click();
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alert').filter({ hasText: 'cannot be removed' }).waitFor();
    await expect(page.locator(`#people tr[data-person="${c.demo.email}"]`).textContent()).resolves.toContain(
      'Owner',
    );
    await page.context().close();
  }, 180_000);
});
