import { randomBytes } from 'node:crypto';
import { spawnCli } from '../support/cli';
import { createTestDatabase, TestDatabase } from '../harness';
import { startAppProcess } from '../support/app-process';
import { until } from '../support/until';

/**
 * No output prints a secret setting: the CLI's `config` (development and production), a configuration error, and a
 * server's start-up log (text and JSON). Every secret is set to a distinctive value, and the output is searched for
 * it, for the byte forms of the keys (hex, base64, base64url, a Buffer's JSON list) and for each URL's password.
 */
describe('secret settings never reach the output', () => {
  let db: TestDatabase;
  const encryptionKey = randomBytes(32);
  const signingKey = randomBytes(32);
  const passwords = {
    database: 'db-pw-Secret-8e1f4',
    replica: 'replica-pw-Secret-3c9d',
    redis: 'redis-pw-Secret-77c2a',
    s3: 's3-endpoint-pw-Secret-5d0b',
  };
  const secrets = {
    OPERATOR_TOKEN: 'operator-token-Secret-1a2b3c4d5e6f',
    SESSION_SECRET: 'session-secret-Secret-0f9e8d7c6b5a4f3e2d1c',
    ENCRYPTION_KEY: encryptionKey.toString('base64'),
    OAUTH_COOKIE_KEYS: 'cookie-key-one-Secret-aaaaaaaaaaaaaaaa,cookie-key-two-Secret-bbbbbbbbbbbbbbbb',
    OAUTH_SIGNING_KEY: signingKey.toString('base64'),
    EMBEDDED_PG_PASSWORD: 'embedded-pg-Secret-c0ffee',
    FILES_S3_SECRET_ACCESS_KEY: 's3-secret-key-Secret-9a8b7c',
  };
  const forbidden = [
    ...Object.values(secrets),
    ...secrets.OAUTH_COOKIE_KEYS.split(','),
    ...[encryptionKey, signingKey].flatMap((b) => [
      b.toString('hex'),
      b.toString('base64'),
      b.toString('base64url'),
      b.join(','),
    ]),
    ...Object.values(passwords),
  ];
  // Without white space too: a Buffer printed as pretty JSON spreads its bytes over lines.
  const leaks = (output: string) =>
    forbidden.filter((s) => output.includes(s) || output.replace(/\s+/g, '').includes(s));
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const databaseUrl = new URL(db.url); // the test server trusts local connections: the password is not checked
    databaseUrl.password = passwords.database;
    const readUrl = new URL(db.url); // the read replica: the same database under another password
    readUrl.password = passwords.replica;
    env = {
      ...secrets,
      DATABASE_URL: databaseUrl.toString(),
      DATABASE_READ_URL: readUrl.toString(),
      // Nothing listens on port 1: the server logs the Redis URL in its warning.
      REDIS_URL: `redis://:${passwords.redis}@127.0.0.1:1`,
      FILES_S3_ENDPOINT: `https://s3user:${passwords.s3}@s3.example.test`,
      RUN_WORKER: 'false',
    };
  });
  afterAll(() => db?.drop());

  const cli = (extra: Record<string, string>, ...args: string[]) => {
    const r = spawnCli({ ...env, ...extra }, ...args);
    return { status: r.status, stdout: r.stdout, output: r.stdout + r.stderr };
  };

  it.each(['development', 'production'])(
    '`gatehouse config` with NODE_ENV=%s shows each secret as [redacted]',
    (nodeEnv) => {
      const r = cli({ NODE_ENV: nodeEnv }, 'config');
      expect(r.status).toBe(0);
      expect(leaks(r.output)).toEqual([]);
      const printed = JSON.parse(r.stdout);
      expect(printed).toMatchObject({
        nodeEnv,
        databaseUrl: expect.stringContaining(':[redacted]@127.0.0.1:5432/'),
        databaseReadUrl: expect.stringContaining(':[redacted]@127.0.0.1:5432/'),
        redisUrl: 'redis://:[redacted]@127.0.0.1:1',
        embeddedPg: { password: '[redacted]' },
        secrets: { operatorToken: '[redacted]', sessionSecret: '[redacted]', encryptionKey: '[redacted]' },
        oauth: { cookieKeys: '[redacted]', signingKey: '[redacted]' },
        files: {
          s3: { endpoint: 'https://s3user:[redacted]@s3.example.test', secretAccessKey: '[redacted]' },
        },
      });
    },
  );

  it('a configuration error does not echo a URL password', () => {
    const r = cli({ REDIS_URL: `ftp://user:${passwords.redis}@redis.example.test` }, 'config');
    expect(r.status).toBe(78);
    expect(r.output).toContain('REDIS_URL must be a URL');
    expect(leaks(r.output)).toEqual([]);
  });

  it.each(['test', 'production'])(
    'a server start-up log with NODE_ENV=%s holds none of them',
    async (nodeEnv) => {
      const app = await startAppProcess(db.url, { ...env, NODE_ENV: nodeEnv, LOG_LEVEL: 'debug' }, 120_000);
      try {
        await until(async () => /is unreachable/.test(app.output()), 30_000);
        expect(app.output()).toContain(':[redacted]@127.0.0.1:1');
        app.child.kill('SIGTERM');
        await app.exited;
        expect(leaks(app.output())).toEqual([]);
      } finally {
        app.child.kill('SIGKILL');
      }
    },
    150_000,
  );
});
