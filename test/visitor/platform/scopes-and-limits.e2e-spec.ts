import { bootTestApp, TestApp } from '../../harness';
import { runCli, spawnCli } from '../../support/cli';
import { call, createOrg } from '../../support/platform-fixtures';

/** Operator actions through the CLI (Enterprise custom scopes, raised allowances, expiring keys), seen over /v1. */
describe('custom scopes, raised allowances and expiring keys (operator CLI)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
  });
  afterAll(() => t.close());

  const cli = (...args: string[]) => runCli(t.db.url, ...args);
  const cliError = (...args: string[]) => {
    const r = spawnCli({ DATABASE_URL: t.db.url, NODE_ENV: 'test' }, ...args);
    if (r.status === 0) throw new Error('the command succeeded');
    return r.stderr;
  };
  /** `keys create` arguments for a secret key of `org` in `mode` with `scopes`, plus any `more` flags. */
  const keyArgs = (org: string, mode: string, scopes: string, ...more: string[]) => [
    'keys',
    'create',
    '--org',
    org,
    '--name',
    'k',
    '--kind',
    'secret',
    '--mode',
    mode,
    '--scopes',
    scopes,
    ...more,
  ];
  const newKey = (org: string, mode: string, scopes: string) =>
    cli(...keyArgs(org, mode, scopes)).key as string;

  it('an Enterprise custom scope grants its bundle, is audited, and grants nothing below Enterprise', async () => {
    const ent = await createOrg(t.app, 'enterprise');
    expect(
      cli('org', 'custom-scope', ent.id, '--name', 'custom:front_desk', '--grants', 'sites:read,people:read'),
    ).toEqual({
      organisation_id: ent.id,
      name: 'custom:front_desk',
      grants: ['sites:read', 'people:read'],
      description: '',
    });
    const key = newKey(ent.id, 'live', 'custom:front_desk');
    expect((await call(t.app, 'GET', '/v1/sites', { key })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/v1/people', { key })).statusCode).toBe(200);
    const outside = await call(t.app, 'GET', '/v1/organisation', { key });
    expect(outside.json()).toMatchObject({
      code: 'scope_missing',
      detail: expect.stringContaining('organisation:read'),
    });

    const audit = await call(t.app, 'GET', '/v1/audit-events?action=custom_scope.defined', {
      key: newKey(ent.id, 'live', 'audit:read'),
    });
    expect(audit.json().data).toMatchObject([
      {
        action: 'custom_scope.defined',
        actor: { type: 'operator', id: 'cli' },
        target: { type: 'custom_scope', id: 'custom:front_desk' },
      },
    ]);

    cli('org', 'update', ent.id, '--plan', 'pro');
    const after = await call(t.app, 'GET', '/v1/sites', { key });
    expect(after.statusCode).toBe(403);
    expect(after.json()).toMatchObject({
      code: 'scope_missing',
      detail: expect.stringContaining('sites:read'),
    });
    // Back on Enterprise the bundle applies again (the definition was kept).
    cli('org', 'update', ent.id, '--plan', 'enterprise');
    expect((await call(t.app, 'GET', '/v1/sites', { key })).statusCode).toBe(200);
  });

  it('custom scopes are refused below Enterprise and validated', async () => {
    const pro = await createOrg(t.app, 'pro');
    expect(cliError('org', 'custom-scope', pro.id, '--name', 'custom:x', '--grants', 'sites:read')).toMatch(
      /Enterprise plan; this organisation is on pro/,
    );
    const ent = await createOrg(t.app, 'enterprise');
    const err = cliError(
      'org',
      'custom-scope',
      ent.id,
      '--name',
      'front_desk',
      '--grants',
      'sites:read,nope:read',
    );
    expect(err).toContain('--name: must be custom:');
    expect(err).toContain('--grants.1: unknown scope nope:read');
    expect(cliError(...keyArgs(ent.id, 'test', 'custom:undefined'))).toContain(
      'unknown custom scope custom:undefined',
    );
  });

  it('a raised per-organisation allowance (org update --rate-limit) replaces the plan’s', async () => {
    const org = await createOrg(t.app, 'pro');
    const key = newKey(org.id, 'live', 'sites:read');
    expect((await call(t.app, 'GET', '/v1/sites', { key })).headers['ratelimit-limit']).toBe('600');
    expect(cli('org', 'update', org.id, '--rate-limit', '1200').rate_limit_per_minute).toBe(1200);
    const raised = await call(t.app, 'GET', '/v1/sites', { key });
    expect(raised.headers['ratelimit-limit']).toBe('1200');
    expect(raised.headers['ratelimit-remaining']).toBe(String(1200 - 2));
    // Enforced, not only shown: with an allowance of 3, the third request of the minute passes, the fourth not.
    cli('org', 'update', org.id, '--rate-limit', '3');
    expect((await call(t.app, 'GET', '/v1/sites', { key })).statusCode).toBe(200);
    const refused = await call(t.app, 'GET', '/v1/sites', { key });
    expect([refused.statusCode, refused.headers['ratelimit-limit']]).toEqual([429, '3']);
    cli('org', 'update', org.id, '--rate-limit', 'none');
    const back = await call(t.app, 'GET', '/v1/sites', { key });
    expect([back.statusCode, back.headers['ratelimit-limit']]).toEqual([200, '600']);
    // Test mode keeps its own allowance of 100 whatever the live one is.
    expect(
      (await call(t.app, 'GET', '/v1/sites', { key: newKey(org.id, 'test', 'sites:read') })).headers[
        'ratelimit-limit'
      ],
    ).toBe('100');
  });

  it('keys create --expires-at: the key works until then; a past moment is refused', async () => {
    const org = await createOrg(t.app, 'pro');
    const later = '2099-01-01T00:00:00Z';
    const created = cli(...keyArgs(org.id, 'test', 'sites:read', '--expires-at', later));
    expect(created.expires_at).toBe('2099-01-01T00:00:00.000Z');
    expect((await call(t.app, 'GET', '/v1/sites', { key: created.key })).statusCode).toBe(200);
    expect(
      cliError(...keyArgs(org.id, 'test', 'sites:read', '--expires-at', '2020-01-01T00:00:00Z')),
    ).toContain('--expires-at: must be in the future');
  });
});
