import { DataSource } from 'typeorm';
import { bootTestApp, TestApp } from '../harness';
import { OAuthModelRepository } from '../../src/oauth/oauth-model.repository';
import { PeriodicScheduler } from '../../src/common/periodic';
import { oauthIdHash } from '../../src/visitor/connected-apps/token-hash';

/** The engine's PostgreSQL storage: hashed keys, consume-once, grant revocation, expiry and its purge. */
describe('OAuth adapter storage (oauth.model)', () => {
  let t: TestApp;
  let models: OAuthModelRepository;
  let ds: DataSource;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    models = t.app.get(OAuthModelRepository);
    ds = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it('stores a token under its hash only: the value is nowhere in the table, find restores it', async () => {
    const token = 'svc_at_secret-value-123';
    await models.upsert('Grant', 'g1', { accountId: 'acct_1' }, 3600);
    await models.upsert('AccessToken', token, { jti: token, grantId: 'g1', scope: 'visits:read' }, 3600);
    const dump = JSON.stringify(await ds.query(`SELECT * FROM oauth.model`));
    expect(dump).not.toContain('secret-value-123');
    expect(await models.find('AccessToken', token)).toMatchObject({ jti: token, grantId: 'g1' });
    expect(await models.find('RefreshToken', token)).toBeUndefined();
    expect(await models.find('AccessToken', 'svc_at_other')).toBeUndefined();
  });

  it('consume marks the model consumed (not deleted); of calls at once, exactly one wins', async () => {
    await models.upsert('Grant', 'g2', { accountId: 'acct_1' }, 3600);
    await models.upsert('RefreshToken', 'svc_rt_1', { jti: 'svc_rt_1', grantId: 'g2' }, 3600);
    expect((await models.find('RefreshToken', 'svc_rt_1'))?.consumed).toBeUndefined();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => models.consume('RefreshToken', 'svc_rt_1')),
    );
    expect(results.filter((r) => r.won)).toHaveLength(1);
    expect(results.every((r) => r.grantId === 'g2')).toBe(true);
    expect((await models.find('RefreshToken', 'svc_rt_1'))?.consumed).toEqual(expect.any(Number));
    expect(await models.consume('RefreshToken', 'svc_rt_1')).toEqual({ won: false, grantId: 'g2' });
    expect(await models.consume('RefreshToken', 'svc_rt_none')).toEqual({ won: false, grantId: null });
  });

  it('a token is stored only while its grant exists; revoking a grant deletes everything under it', async () => {
    await models.upsert('AccessToken', 'svc_at_orphan', { grantId: 'g-none' }, 3600);
    expect(await models.find('AccessToken', 'svc_at_orphan')).toBeUndefined();
    await models.upsert('Grant', 'g6', { accountId: 'acct_1' }, 3600);
    await models.upsert('AccessToken', 'svc_at_g6', { grantId: 'g6' }, 3600);
    await models.upsert('RefreshToken', 'svc_rt_g6', { grantId: 'g6' }, 3600);
    await models.revokeGrant('g6');
    expect(await ds.query(`SELECT kind FROM oauth.model WHERE grant_id = 'g6'`)).toEqual([]);
    await models.upsert('AccessToken', 'svc_at_g6_late', { grantId: 'g6' }, 3600);
    expect(await models.find('AccessToken', 'svc_at_g6_late')).toBeUndefined();
  });

  it('revokeByGrantId removes that kind of the grant only; a grant is indexed under its own id', async () => {
    await models.upsert('Grant', 'g4', { accountId: 'acct_1' }, 3600);
    await models.upsert('Grant', 'g3', { accountId: 'acct_1' }, 3600);
    await models.upsert('AccessToken', 'svc_at_a', { grantId: 'g3' }, 3600);
    await models.upsert('AccessToken', 'svc_at_b', { grantId: 'g3' }, 3600);
    await models.upsert('AccessToken', 'svc_at_c', { grantId: 'g4' }, 3600);
    await models.upsert('RefreshToken', 'svc_rt_a', { grantId: 'g3' }, 3600);
    await models.revokeByGrantId('AccessToken', 'g3');
    expect(await models.find('AccessToken', 'svc_at_a')).toBeUndefined();
    expect(await models.find('AccessToken', 'svc_at_b')).toBeUndefined();
    expect(await models.find('AccessToken', 'svc_at_c')).toBeDefined();
    expect(await models.find('RefreshToken', 'svc_rt_a')).toBeDefined();
    const [grant] = await ds.query(`SELECT grant_id FROM oauth.model WHERE kind = 'Grant' AND id_hash = $1`, [
      oauthIdHash('g3'),
    ]);
    expect(grant.grant_id).toBe('g3');
    await models.destroy('Grant', 'g3');
    expect(await models.find('Grant', 'g3')).toBeUndefined();
  });

  it('an expired model is not found, and the purge deletes it', async () => {
    await models.upsert('Grant', 'g5', { accountId: 'acct_1' }, 3600);
    await models.upsert('AuthorizationCode', 'svc_ac_old', { grantId: 'g5' }, 1);
    await ds.query(
      `UPDATE oauth.model SET expires_at = now() - interval '1 second' WHERE kind = 'AuthorizationCode'`,
    );
    expect(await models.find('AuthorizationCode', 'svc_ac_old')).toBeUndefined();
    expect(await t.app.get(PeriodicScheduler).run('connected-apps.purge')).toBe(1);
    expect(await ds.query(`SELECT kind FROM oauth.model WHERE grant_id = 'g5'`)).toEqual([{ kind: 'Grant' }]);
  });

  it('sessions are found by uid', async () => {
    await models.upsert('Session', 'sess-cookie-value', { uid: 'u-1', accountId: 'acct_9' }, 3600);
    expect(await models.findByUid('Session', 'u-1')).toMatchObject({ accountId: 'acct_9' });
  });
});
