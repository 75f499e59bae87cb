import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  ConfigError,
  configMarkdownTable,
  configRedactor,
  CONFIG_SPEC,
  loadConfig,
  redactedConfig,
} from './config';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env, '/srv/app');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

/** Every secret production requires, so a test's own setting is the only problem. */
const production = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://gatehouse@127.0.0.1:1/gatehouse',
  OPERATOR_TOKEN: 'o'.repeat(32),
  SESSION_SECRET: 's'.repeat(40),
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  OAUTH_COOKIE_KEYS: 'k'.repeat(32),
  OAUTH_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
};

describe('configuration', () => {
  it('has working development defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      baseUrl: 'http://localhost:3000',
      docsUrl: 'http://localhost:3000/docs',
      authUrl: 'http://localhost:3000',
      databaseUrl: null,
      databaseReadUrl: null,
      redisUrl: 'redis://127.0.0.1:6379',
      bodyLimitBytes: 1048576,
      surfaces: ['public', 'visitor', 'mcp', 'console', 'docs'],
      requestLog: { retentionDays: 30 },
      embeddedPg: { dir: '/srv/app/.data/pg', port: 54329 },
    });
  });

  it('derives origins from BASE_URL and strips trailing slashes', () => {
    const c = loadConfig({ BASE_URL: 'https://api.example.org/', DOCS_URL: 'https://docs.example.org/' });
    expect(c.baseUrl).toBe('https://api.example.org');
    expect(c.appUrl).toBe('https://api.example.org');
    expect(c.docsUrl).toBe('https://docs.example.org');
  });

  it('names every malformed variable', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      BASE_URL: 'not a url',
      DATABASE_URL: 'mysql://x',
      DATABASE_READ_URL: 'replica.internal:5432',
      REDIS_URL: 'http://localhost',
      LOG_LEVEL: 'loud',
      BODY_LIMIT_BYTES: '-1',
      TRUST_PROXY: 'maybe',
      SURFACES: 'public,admin',
      ENCRYPTION_KEY: 'short',
    });
    for (const name of [
      'PORT',
      'BASE_URL',
      'DATABASE_URL',
      'DATABASE_READ_URL',
      'REDIS_URL',
      'LOG_LEVEL',
      'BODY_LIMIT_BYTES',
      'TRUST_PROXY',
      'SURFACES',
      'ENCRYPTION_KEY',
    ]) {
      expect(problems.some((p) => p.startsWith(`${name} `))).toBe(true);
    }
  });

  it('refuses WEBHOOK_ALLOW_LOCAL_TARGETS in production only', () => {
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

  it('bounds slow clients by default and refuses a headers timeout longer than the request timeout', () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 4096,
    });
    expect(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS',
    ]);
  });

  it('validates the OAuth keys and refuses the local metadata allowance in production', () => {
    expect(problemsOf({ OAUTH_COOKIE_KEYS: `${'a'.repeat(32)},short`, OAUTH_SIGNING_KEY: 'abc' })).toEqual([
      'OAUTH_COOKIE_KEYS must list keys of at least 32 characters each',
      'OAUTH_SIGNING_KEY must be the base64 encoding of exactly 32 bytes',
    ]);
    expect(problemsOf({ ...production, OAUTH_ALLOW_LOCAL_METADATA: 'true' })).toEqual([
      'OAUTH_ALLOW_LOCAL_METADATA must not be true in production',
    ]);
  });

  it('has no default secrets in production', () => {
    const problems = problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/app' });
    expect(problems).toEqual([
      'OPERATOR_TOKEN must be set in production (no default secrets)',
      'SESSION_SECRET must be set in production (no default secrets)',
      'ENCRYPTION_KEY must be set in production (no default secrets)',
      'OAUTH_COOKIE_KEYS must be set in production (no default secrets)',
      'OAUTH_SIGNING_KEY must be set in production (no default secrets)',
    ]);
    const ok = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/app',
      OPERATOR_TOKEN: 'o'.repeat(32),
      SESSION_SECRET: 's'.repeat(40),
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      OAUTH_COOKIE_KEYS: 'k'.repeat(32),
      OAUTH_SIGNING_KEY: Buffer.alloc(32, 2).toString('base64'),
    });
    expect(ok.seedOnFirstStart).toBe(false);
  });

  it('requires the embedded database password in production only when no DATABASE_URL is given', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toContain(
      'EMBEDDED_PG_PASSWORD must be set in production (no default secrets)',
    );
  });

  it('documents every variable in the README table, with its default', () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const rows = new Map(
      readme
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((cells) => [cells[1].replace(/`/g, ''), cells[3]]),
    );
    const missing = configMarkdownTable()
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').map((c) => c.trim()))
      .filter(([, name, , def]) => rows.get(name.replace(/`/g, '')) !== def)
      .map(([, name]) => name);
    expect(missing).toEqual([]);
    expect(CONFIG_SPEC.length).toBeGreaterThan(10);
  });

  it.each(['dist/src/main.js', 'dist/src/worker.js'])(
    '%s exits with EX_CONFIG (78) on WEBHOOK_ALLOW_LOCAL_TARGETS in production, before touching the database',
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

  it('marks every secret-looking setting secret, so no output prints it', () => {
    const looksSecret = CONFIG_SPEC.filter((v) => /PASSWORD|SECRET(?!_OVERLAP)|TOKEN|_KEYS?$/.test(v.name));
    expect(looksSecret.filter((v) => !v.secret).map((v) => v.name)).toEqual([]);
    expect(looksSecret.length).toBe(7);
  });

  it('redacts secrets, their key bytes and URL passwords, in the printed config and in text', () => {
    const c = loadConfig(
      {
        ...production,
        REDIS_URL: 'rediss://user:redis-pass-123@redis.example.test:6380',
        FILES_S3_SECRET_ACCESS_KEY: 's3-secret-access-key',
      },
      '/srv/app',
    );
    const printed = JSON.stringify(redactedConfig(c));
    for (const secret of [
      production.OPERATOR_TOKEN,
      production.OAUTH_COOKIE_KEYS,
      'redis-pass-123',
      's3-secret',
    ])
      expect(printed).not.toContain(secret);
    expect(redactedConfig(c)).toMatchObject({
      redisUrl: 'rediss://user:[redacted]@redis.example.test:6380',
      oauth: { signingKey: '[redacted]', cookieKeys: '[redacted]' },
    });
    const redact = configRedactor(c);
    const signing = Buffer.alloc(32, 2);
    expect(
      redact(
        `a ${production.SESSION_SECRET} b ${signing.toString('hex')} c ${signing.toString('base64url')} ` +
          `d ${production.ENCRYPTION_KEY} e redis-pass-123 f postgres://u:any-pw@db/x`,
      ),
    ).toBe('a [redacted] b [redacted] c [redacted] d [redacted] e [redacted] f postgres://u:[redacted]@db/x');
    // Development defaults are public (they are in the source) and are left in ordinary text.
    expect(configRedactor(loadConfig({}, '/srv/app'))('gatehouse is ready')).toBe('gatehouse is ready');
  });
});
