import * as oauth from 'oauth4webapi';
import type { TestApp } from '../harness';
import {
  authorize,
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  pkce,
  registerApp,
  v1Get,
} from '../support/oauth-fixtures';
import { FormBrowser } from '../../bench/oauth-flow';
import type { AccountRow } from '../../src/visitor/accounts/accounts.repository';
import { ConnectedAppsService } from '../../src/visitor/connected-apps/connected-apps.service';

/**
 * Issue "Hardening, third round" item 1: an authorization code or a refresh token redeemed by several requests at
 * once is redeemed once. Exactly one request gets tokens; every other gets `invalid_grant`, and as a replay it
 * revokes the grant (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1): the winner's tokens stop working too.
 */
describe('OAuth: concurrent redemption of one code or refresh token', () => {
  let t: TestApp & { baseUrl: string };
  let owner: AccountRow;
  let orgId: string;
  let as: oauth.AuthorizationServer;
  const redirectUri = 'http://127.0.0.1:9/callback';
  const ROUNDS = 7;
  /** One browser: the owner signs in once (sign-in is rate limited), then consents in every round. */
  const browser = new FormBrowser();

  beforeAll(async () => {
    t = await bootOAuthApp();
    const org = await createOrg(t.app, 'pro');
    orgId = org.id;
    owner = await createPerson(t, org, 'owner');
    as = await discover(t.baseUrl);
  });
  afterAll(() => t.close());

  /** A token request over the network, answered as status and JSON body. */
  async function tokenRequest(basic: string, form: Record<string, string>) {
    const res = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  /** A confidential app, consented by the owner: its Basic credentials, a fresh code and its verifier. */
  async function consented() {
    const app = await registerApp(t, owner, 'confidential', redirectUri);
    const basic = Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64');
    const { verifier, challenge } = await pkce();
    const done = await authorize(
      t.baseUrl,
      {
        person: owner,
        clientId: app.client_id,
        redirectUri,
        scope: 'organisation:read',
        state: 'st',
        codeChallenge: challenge,
      },
      browser,
    );
    if (!done.callback) throw new Error(`authorization stopped: ${done.status} ${done.page.slice(0, 2000)}`);
    const code = done.callback.searchParams.get('code')!;
    expect(code).toMatch(/^svc_ac_/);
    const codeForm = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    };
    return { basic, codeForm };
  }

  /** Exactly one answer is 200; every other is invalid_grant. Returns the winner's tokens. */
  function oneWinner(answers: { status: number; body: Record<string, string> }[]) {
    const won = answers.filter((a) => a.status === 200);
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(answers.length - 1).fill(400)]);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error).toBe('invalid_grant');
    return won[0].body;
  }

  /** The winner's tokens no longer work: its access token at /v1, its refresh token at the token endpoint. */
  async function revoked(basic: string, tokens: Record<string, string>) {
    expect((await v1Get(t, tokens.access_token, '/v1/organisation')).status).toBe(401);
    const refresh = await tokenRequest(basic, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // and the console no longer lists the app's connection as live
    const clientId = Buffer.from(basic, 'base64').toString().split(':')[0];
    const app = (await t.app.get(ConnectedAppsService).list(orgId)).find((a) => a.client_id === clientId);
    expect(app?.connections).toEqual([]);
  }

  it('a code sent by two or four requests at once gives one set of tokens, and the replay revokes it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { basic, codeForm } = await consented();
      const n = round % 2 === 0 ? 2 : 4;
      const answers = await Promise.all(Array.from({ length: n }, () => tokenRequest(basic, codeForm)));
      await revoked(basic, oneWinner(answers));
    }
  }, 120_000);

  it('a refresh token sent by two or four requests at once rotates once, and the replay revokes the grant', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { basic, codeForm } = await consented();
      const first = await tokenRequest(basic, codeForm);
      expect(first.status).toBe(200);
      expect((await v1Get(t, first.body.access_token, '/v1/organisation')).status).toBe(200);
      const form = { grant_type: 'refresh_token', refresh_token: first.body.refresh_token };
      const n = round % 2 === 0 ? 2 : 4;
      const answers = await Promise.all(Array.from({ length: n }, () => tokenRequest(basic, form)));
      const winner = oneWinner(answers);
      expect(winner.refresh_token).not.toBe(first.body.refresh_token);
      await revoked(basic, winner);
      expect((await v1Get(t, first.body.access_token, '/v1/organisation')).status).toBe(401);
    }
  }, 120_000);
});
