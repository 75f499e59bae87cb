import { bootTestApp, TestApp } from '../../harness';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import type { Credential } from '../../../src/visitor/platform/credential';
import { CredentialRegistry } from '../../../src/visitor/platform/credential.registry';
import { SCOPES, type Role } from '../../../src/visitor/platform/scopes';

/**
 * The last step of the guard chain: where a person acts (OAuth tokens, once they exist), their role limits
 * what the token's scopes allow. A test resolver stands in for the OAuth token store: `test_person_<role>`
 * resolves to a credential with every scope, acting for a person with that role.
 */
describe('guard chain: the role of the person acting', () => {
  let t: TestApp;
  let org: TestOrg;
  let site: string;
  let host: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    org = await createOrg(t.app, 'pro');
    site = org.sites.find((s) => !s.livemode)!.id;
    t.app.get(CredentialRegistry).register({
      prefixes: ['test_person_'],
      resolve: async (token): Promise<Credential> => ({
        kind: 'oauth_token',
        id: `grant_${token}`,
        livemode: false,
        publishable: false,
        scopes: new Set(SCOPES),
        actingRole: token.slice('test_person_'.length) as Role,
        actingAccountId: 'acct_test',
        organisation: {
          id: org.id,
          plan: 'pro',
          overrides: { ratePerMinute: null, historyDays: null, auditDays: null },
          ipAllowList: [],
        },
      }),
    });
    const key = await org.key();
    host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'H', email: 'h@role.test' } })
    ).json().id;
  });
  afterAll(() => t.close());

  const newVisit = (role: Role) =>
    call(t.app, 'POST', '/v1/visits', {
      key: `test_person_${role}`,
      body: { site_id: site, host_id: host, type: 'meeting', visitor: { name: 'V', phone: '+233244123499' } },
    });

  it('a member runs the front door but cannot manage webhooks or read the audit trail', async () => {
    expect((await newVisit('member')).statusCode).toBe(201);
    const hook = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key: 'test_person_member',
      body: { url: 'https://hooks.example.com/x', enabled_events: ['*'] },
    });
    expect(hook.statusCode).toBe(403);
    expect(hook.json()).toMatchObject({ code: 'forbidden' });
    expect(hook.json().detail).toContain('member');
    expect((await call(t.app, 'GET', '/v1/audit-events', { key: 'test_person_member' })).json().code).toBe(
      'forbidden',
    );
  });

  it('support staff only read; an admin may do everything the scopes allow', async () => {
    expect((await newVisit('support')).json().code).toBe('forbidden');
    expect((await call(t.app, 'GET', '/v1/visits', { key: 'test_person_support' })).statusCode).toBe(200);
    expect((await newVisit('admin')).statusCode).toBe(201);
  });
});
