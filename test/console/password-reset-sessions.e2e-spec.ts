import { createTestDatabase, TestApp, TestDatabase } from '../harness';
import { AppProcess, startAppProcess } from '../support/app-process';
import { runCli } from '../support/cli';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  FormBrowser,
  registerApp,
} from '../support/oauth-fixtures';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';

/**
 * A password change ends the person's other console sessions: a session cookie opened with the old password no
 * longer works once `gatehouse demo` has reset the demo Owner's password (compiled service and CLI, real HTTP).
 */
describe('password reset ends open console sessions', () => {
  let db: TestDatabase;
  let app: AppProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startAppProcess(db.url, { SEED_ON_FIRST_START: 'true' }, 120_000);
  }, 150_000);
  afterAll(async () => {
    app?.child.kill('SIGTERM');
    await app?.exited;
    await db?.drop();
  });

  const signIn = async (email: string, password: string) => {
    const res = await fetch(`${app.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const cookie = /^gh_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    return { status: res.status, cookie };
  };
  const me = async (cookie: string) =>
    (await fetch(`${app.url}/console/session`, { headers: { cookie: `gh_session=${cookie}` } })).status;

  it('the old session cookie is refused after `gatehouse demo`, a new sign-in works', async () => {
    const printed = /console sign-in\s+(\S+@\S+) \/ (\S+)/.exec(app.output());
    expect(printed).not.toBeNull();
    const [, email, oldPassword] = printed!;
    const before = await signIn(email, oldPassword);
    expect(before.status).toBe(200);
    const other = await signIn(email, oldPassword); // a second browser
    expect(await me(before.cookie!)).toBe(200);
    expect(await me(other.cookie!)).toBe(200);

    const access = runCli(db.url, 'demo') as { email: string; password: string };
    expect(access.email).toBe(email);

    expect(await me(before.cookie!)).toBe(401);
    expect(await me(other.cookie!)).toBe(401);
    expect((await signIn(email, oldPassword)).status).toBe(401);
    const after = await signIn(email, access.password);
    expect(after.status).toBe(200);
    expect(await me(after.cookie!)).toBe(200);
  }, 60_000);
});

/**
 * The authorization page's sign-in (the OAuth engine's session cookie) is a session too: after a password reset
 * the same browser must sign in again before it can connect an app.
 */
describe('password reset ends the authorization page sign-in', () => {
  let t: TestApp & { baseUrl: string };
  let owner: AccountRow;
  let clientId: string;
  const redirectUri = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    t = await bootOAuthApp();
    owner = await createPerson(t, await createOrg(t.app, 'pro'), 'owner');
    clientId = (await registerApp(t, owner, 'public', redirectUri)).client_id;
  });
  afterAll(() => t.close());

  const connect = (browser: FormBrowser, person?: AccountRow) =>
    authorize(t.baseUrl, { person, clientId, redirectUri, scope: 'organisation:read' }, browser);

  it('a browser signed in before the reset is asked to sign in again', async () => {
    const browser = new FormBrowser();
    expect((await connect(browser, owner)).callback?.searchParams.get('code')).toBeTruthy();
    // Signed in: the next authorization goes straight to consent, no password asked.
    expect((await connect(browser)).callback?.searchParams.get('code')).toBeTruthy();

    await t.app
      .get(AccountsService)
      .resetPassword(owner, 'a-new-password-after-reset', { type: 'operator', id: 'test' });

    const after = await connect(browser);
    expect(after.callback).toBeNull();
    expect(after.page).toContain('action="');
    expect(after.page).toMatch(/name="password"/);
  }, 60_000);
});
