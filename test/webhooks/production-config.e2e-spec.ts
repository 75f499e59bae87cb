import { spawnSync } from 'node:child_process';

/**
 * WEBHOOK_ALLOW_LOCAL_TARGETS is for development and tests: production refuses to start with it (the loader's
 * rule is tested in src/config/config.spec.ts; here the compiled entry points).
 */
describe('production refuses WEBHOOK_ALLOW_LOCAL_TARGETS', () => {
  // every secret production requires, so the flag is the only problem
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://gatehouse@127.0.0.1:1/gatehouse',
    OPERATOR_TOKEN: 'o'.repeat(32),
    SESSION_SECRET: 's'.repeat(40),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  };
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
