import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/config/config';

/** WEBHOOK_ALLOW_LOCAL_TARGETS is for development and tests: production refuses to start with it. */
describe('production refuses WEBHOOK_ALLOW_LOCAL_TARGETS', () => {
  // every secret production requires, so the flag is the only problem
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://gatehouse@127.0.0.1:1/gatehouse',
    OPERATOR_TOKEN: 'o'.repeat(32),
    SESSION_SECRET: 's'.repeat(40),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  };
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env, '/srv/app');
    } catch (e) {
      if (e instanceof ConfigError) return e.problems;
      throw e;
    }
    return [];
  };

  it('the config loader names the flag as the one problem in production, and accepts it elsewhere', () => {
    expect(problemsOf({ ...production, WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' })).toEqual([
      'WEBHOOK_ALLOW_LOCAL_TARGETS must not be true in production',
    ]);
    expect(problemsOf({ ...production, WEBHOOK_ALLOW_LOCAL_TARGETS: 'false' })).toEqual([]);
    expect(loadConfig({ ...production }).webhooks.allowLocalTargets).toBe(false);
    for (const NODE_ENV of ['development', 'test'])
      expect(loadConfig({ NODE_ENV, WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' }).webhooks.allowLocalTargets).toBe(
        true,
      );
  });

  it.each(['dist/src/main.js', 'dist/src/worker.js'])(
    '%s exits with EX_CONFIG (78) before touching the database',
    (entry) => {
      const run = spawnSync(process.execPath, [entry], {
        env: { PATH: process.env.PATH ?? '', ...production, WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(78);
      expect(run.stderr).toContain('WEBHOOK_ALLOW_LOCAL_TARGETS must not be true in production');
    },
  );
});
