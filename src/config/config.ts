import { isAbsolute, resolve } from 'node:path';

/**
 * One typed, validated schema for every setting. `loadConfig(env)` reads the environment once at start-up;
 * a missing or malformed value throws a `ConfigError` whose message names the variable. In production mode
 * secrets have no defaults. The README's configuration table is generated from `CONFIG_SPEC`
 * (`npx gatehouse config --markdown`).
 */

export type Surface = 'public' | 'visitor' | 'mcp' | 'console' | 'docs';
export const ALL_SURFACES: readonly Surface[] = ['public', 'visitor', 'mcp', 'console', 'docs'];
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug';

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  baseUrl: string;
  authUrl: string;
  appUrl: string;
  docsUrl: string;
  siteUrl: string;
  databaseUrl: string | null;
  /** A streaming replica for lag-tolerant reads (the public content API); null: every read goes to the primary. */
  databaseReadUrl: string | null;
  databasePoolSize: number;
  embeddedPg: { dir: string; port: number; password: string };
  redisUrl: string;
  redisKeyPrefix: string;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body. */
  jsonMaxDepth: number;
  /** Per-connection limits of the HTTP server (slow or stuck clients). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnections: number;
  };
  trustProxy: boolean;
  surfaces: Surface[];
  runWorker: boolean;
  shutdownTimeoutMs: number;
  requestLog: { retentionDays: number; flushMs: number; batchSize: number; maxBuffer: number };
  secrets: { operatorToken: string; sessionSecret: string; encryptionKey: string };
  /** The OAuth 2.1 authorization server (src/oauth). */
  oauth: {
    /** Keys that sign the engine's cookies (first signs, all verify: rotation). */
    cookieKeys: string[];
    /** 32-byte Ed25519 seed of the engine's signing key. */
    signingKey: Buffer;
    /** Client ID Metadata Documents: largest body, fetch time limit, longest cache. */
    metadataMaxBytes: number;
    metadataTimeoutMs: number;
    metadataCacheSeconds: number;
    /** Development and tests: metadata documents may be fetched from loopback (certificate not checked there). */
    allowLocalMetadata: boolean;
  };
  webhooks: {
    allowLocalTargets: boolean;
    timeoutMs: number;
    secretOverlapHours: number;
    sweepMs: number;
    concurrency: number;
  };
  visits: { noShowGraceMinutes: number };
  /** Uploaded files: the storage driver, its settings, and how long signed links live. */
  files: {
    driver: 'local' | 's3';
    dir: string;
    linkTtlSeconds: number;
    s3: {
      bucket: string;
      region: string;
      endpoint: string | null;
      forcePathStyle: boolean;
      accessKeyId: string | null;
      secretAccessKey: string | null;
    };
  };
  /** Provider name per message channel (see MESSAGE_PROVIDERS in src/visitor/messages). */
  messages: { providers: { email: string; sms: string; whatsapp: string } };
  testModeRatePerMinute: number;
  publicRates: { keylessPerMinute: number; keyedPerMinute: number };
  seedOnFirstStart: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

interface VarSpec {
  name: string;
  description: string;
  default?: string;
  /**
   * Marks a secret and says where its value lives in a loaded Config: it is never printed — the CLI's `config`
   * shows `[redacted]`, and the logs and error messages have it (and its byte encodings) replaced (see
   * `redactedConfig`, `configRedactor`). A URL setting's password is redacted wherever any URL is printed.
   */
  secret?: (c: Config) => string | string[] | Buffer | null;
}

/** Every variable Gatehouse reads, in README order. */
export const CONFIG_SPEC: VarSpec[] = [
  { name: 'NODE_ENV', description: '`development`, `production` or `test`', default: 'development' },
  { name: 'HOST', description: 'Interface to listen on', default: '127.0.0.1' },
  { name: 'PORT', description: 'HTTP port', default: '3000' },
  {
    name: 'BASE_URL',
    description: 'Public origin of the APIs (`{base_url}` without `/v1`)',
    default: 'http://localhost:$PORT',
  },
  {
    name: 'AUTH_URL',
    description: 'Origin of the OAuth token, metadata and registration endpoints',
    default: '$BASE_URL',
  },
  {
    name: 'APP_URL',
    description: 'Origin of the console and OAuth authorization page',
    default: '$BASE_URL',
  },
  {
    name: 'DOCS_URL',
    description: 'Documentation root; problem `type` URLs are `{DOCS_URL}/errors#<code>`',
    default: '$BASE_URL/docs',
  },
  {
    name: 'SITE_URL',
    description: "The platform's own website (survey answering, durbar joining, visitors' pass pages)",
    default: '$BASE_URL',
  },
  {
    name: 'DATABASE_URL',
    description: 'PostgreSQL URL; when unset an embedded PostgreSQL is started under `.data/`',
    default: '(embedded)',
  },
  {
    name: 'DATABASE_READ_URL',
    description:
      'PostgreSQL URL of a read replica: public API reads go to it (falling back to the primary while it is down); they may lag the primary by its replication delay',
    default: '(none)',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    description: 'PostgreSQL connections per process (and as many to the read replica when set)',
    default: '10',
  },
  { name: 'EMBEDDED_PG_DIR', description: 'Data directory of the embedded PostgreSQL', default: '.data/pg' },
  {
    name: 'EMBEDDED_PG_PORT',
    description: 'Port of the embedded PostgreSQL (127.0.0.1 only)',
    default: '54329',
  },
  {
    name: 'EMBEDDED_PG_PASSWORD',
    description: 'Password of the embedded PostgreSQL superuser',
    default: 'gatehouse',
    secret: (c) => c.embeddedPg.password,
  },
  {
    name: 'REDIS_URL',
    description: 'Redis URL (BullMQ, shared rate-limit counters)',
    default: 'redis://127.0.0.1:6379',
  },
  {
    name: 'REDIS_KEY_PREFIX',
    description: 'Prefix of every Redis key (several deployments may share one Redis)',
    default: 'gh',
  },
  { name: 'LOG_LEVEL', description: '`fatal`, `error`, `warn`, `info` or `debug`', default: 'info' },
  { name: 'BODY_LIMIT_BYTES', description: 'Largest accepted request body', default: '1048576' },
  {
    name: 'JSON_MAX_DEPTH',
    description: 'Deepest nesting of arrays and objects in a JSON body (deeper → `bad_request`)',
    default: '64',
  },
  {
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    description:
      'A request whose headers are not all received this long after it starts gets 408 and is closed',
    default: '10000',
  },
  {
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    description:
      'A request (headers and body) not fully received this long after it starts gets 408 and is closed',
    default: '30000',
  },
  {
    name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    description:
      'An idle keep-alive connection is closed after this long (keep it above the idle timeout of a proxy in front)',
    default: '72000',
  },
  {
    name: 'HTTP_MAX_CONNECTIONS',
    description: 'Open connections per process; further connections are closed as they arrive',
    default: '4096',
  },
  {
    name: 'TRUST_PROXY',
    description:
      'Take the client IP from `X-Forwarded-For` and the scheme (HSTS) from `X-Forwarded-Proto` (`true` behind a proxy)',
    default: 'false',
  },
  {
    name: 'SURFACES',
    description:
      'Comma list of surfaces this process serves: `public`, `visitor`, `mcp` (the tool servers: `/mcp` with `visitor`, `/public/mcp` with `public`), `console`, `docs`',
    default: 'public,visitor,mcp,console,docs',
  },
  {
    name: 'RUN_WORKER',
    description:
      'Run background jobs in this process (webhook and pass deliveries, sweepers, no-shows, retention purges); each periodic job runs once per period across the workers sharing `REDIS_KEY_PREFIX`. `false` schedules nothing',
    default: 'true',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    description: 'How long graceful shutdown waits for in-flight requests',
    default: '10000',
  },
  { name: 'REQUEST_LOG_RETENTION_DAYS', description: 'Days the request log is kept', default: '30' },
  {
    name: 'REQUEST_LOG_FLUSH_MS',
    description: 'How often buffered request-log entries are written',
    default: '200',
  },
  {
    name: 'REQUEST_LOG_BATCH_SIZE',
    description: 'Requests per stored request-log batch (one row each)',
    default: '500',
  },
  {
    name: 'REQUEST_LOG_MAX_BUFFER',
    description: 'Requests held in memory before the oldest are dropped (database down)',
    default: '50000',
  },
  {
    name: 'OPERATOR_TOKEN',
    description: 'Bearer token for operator/support console endpoints (≥ 24 chars)',
    default: '(dev only)',
    secret: (c) => c.secrets.operatorToken,
  },
  {
    name: 'SESSION_SECRET',
    description: "Key that signs list cursors, visitors' pass links and the pages' CSRF cookies (≥ 32 chars)",
    default: '(dev only)',
    secret: (c) => c.secrets.sessionSecret,
  },
  {
    name: 'ENCRYPTION_KEY',
    description: 'Base64 of 32 bytes; encrypts secrets at rest (webhook signing secrets)',
    default: '(dev only)',
    secret: (c) => c.secrets.encryptionKey,
  },
  {
    name: 'OAUTH_COOKIE_KEYS',
    description:
      'Comma list of keys (each ≥ 32 chars) signing the OAuth authorization cookies; the first signs, all verify',
    default: '(dev only)',
    secret: (c) => c.oauth.cookieKeys,
  },
  {
    name: 'OAUTH_SIGNING_KEY',
    description: "Base64 of 32 bytes: seed of the OAuth server's Ed25519 signing key",
    default: '(dev only)',
    secret: (c) => c.oauth.signingKey,
  },
  {
    name: 'OAUTH_METADATA_MAX_BYTES',
    description: 'Largest Client ID Metadata Document fetched (larger → the client is refused)',
    default: '5120',
  },
  {
    name: 'OAUTH_METADATA_TIMEOUT_MS',
    description: 'A Client ID Metadata Document must arrive within this time',
    default: '2500',
  },
  {
    name: 'OAUTH_METADATA_CACHE_SECONDS',
    description:
      'Longest time a fetched metadata document is cached (its `Cache-Control` may ask for less; at least 60 s)',
    default: '3600',
  },
  {
    name: 'OAUTH_ALLOW_LOCAL_METADATA',
    description:
      'Development and tests only: fetch metadata documents from loopback hosts, certificate unchecked (refused in production)',
    default: 'false',
  },
  {
    name: 'WEBHOOK_ALLOW_LOCAL_TARGETS',
    description: 'Development and tests only: also deliver to `http://` and loopback (refused in production)',
    default: 'false',
  },
  { name: 'WEBHOOK_TIMEOUT_MS', description: 'Receiver must answer within this time', default: '15000' },
  {
    name: 'WEBHOOK_SECRET_OVERLAP_HOURS',
    description: 'After a secret rotation the old secret also signs for this long',
    default: '24',
  },
  {
    name: 'WEBHOOK_SWEEP_MS',
    description:
      'How often each worker claims due deliveries from PostgreSQL without a wake-up (retries, claims of a dead worker, jobs Redis lost)',
    default: '5000',
  },
  { name: 'WEBHOOK_CONCURRENCY', description: 'Deliveries in flight per worker process', default: '50' },
  ...(['EMAIL', 'SMS', 'WHATSAPP'] as const).map((c) => ({
    name: `MESSAGE_PROVIDER_${c}`,
    description: `Provider of ${c === 'SMS' ? 'SMS' : c.toLowerCase()} messages in live mode (\`log\`: the outbox and the log; test mode never sends)`,
    default: 'log',
  })),
  {
    name: 'VISIT_NO_SHOW_GRACE_MINUTES',
    description: 'An `expected` visit becomes `no_show` this long after its window ends',
    default: '120',
  },
  {
    name: 'FILES_DRIVER',
    description: 'Where uploaded files are stored: `local` (a directory) or `s3` (an S3-compatible bucket)',
    default: 'local',
  },
  { name: 'FILES_DIR', description: 'Directory of the `local` file driver', default: '.data/files' },
  {
    name: 'FILES_LINK_TTL_SECONDS',
    description: 'Life of signed upload and download links of files',
    default: '300',
  },
  { name: 'FILES_S3_BUCKET', description: 'Bucket of the `s3` file driver', default: 'gatehouse-files' },
  { name: 'FILES_S3_REGION', description: 'Region of the `s3` file driver', default: 'us-east-1' },
  {
    name: 'FILES_S3_ENDPOINT',
    description: 'Endpoint of an S3-compatible service (unset: AWS S3)',
  },
  {
    name: 'FILES_S3_FORCE_PATH_STYLE',
    description: 'Address the bucket in the path rather than the host name (most S3-compatible services)',
    default: 'false',
  },
  {
    name: 'FILES_S3_ACCESS_KEY_ID',
    description: 'Access key of the `s3` driver (unset: the AWS SDK default credential chain)',
  },
  {
    name: 'FILES_S3_SECRET_ACCESS_KEY',
    description: 'Secret key of the `s3` driver',
    secret: (c) => c.files.s3.secretAccessKey,
  },
  {
    name: 'TEST_MODE_RATE_PER_MINUTE',
    description:
      "Test-mode requests a minute per organisation; the API's published value is 100 (raise only for load tests)",
    default: '100',
  },
  {
    name: 'PUBLIC_KEYLESS_RATE_PER_MINUTE',
    description:
      'Public API requests a minute per client IP without a key (published value 30; raise only for load tests)',
    default: '30',
  },
  {
    name: 'PUBLIC_KEYED_RATE_PER_MINUTE',
    description:
      'Public API requests a minute per x-api-key (published value 600; raise only for load tests)',
    default: '600',
  },
  {
    name: 'SEED_ON_FIRST_START',
    description: 'Seed demo data the first time the database is migrated',
    default: 'true (false in production)',
  },
];

const DEV_SECRETS = {
  OPERATOR_TOKEN: 'dev-operator-token-change-me-0000',
  SESSION_SECRET: 'dev-session-secret-change-me-0000000000000',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  OAUTH_COOKIE_KEYS: 'dev-oauth-cookie-key-change-me-000000000',
  OAUTH_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
  EMBEDDED_PG_PASSWORD: 'gatehouse',
};

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  str(name: string, dflt: string): string {
    return this.raw(name) ?? dflt;
  }

  int(name: string, dflt: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${v}")`);
      return dflt;
    }
    return Number(v);
  }

  bool(name: string, dflt: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return dflt;
    if (/^(true|1|yes)$/i.test(v)) return true;
    if (/^(false|0|no)$/i.test(v)) return false;
    this.problems.push(`${name} must be true or false (got "${v}")`);
    return dflt;
  }

  oneOf<T extends string>(name: string, dflt: T, allowed: readonly T[]): T {
    const v = this.raw(name);
    if (v === undefined) return dflt;
    if (!allowed.includes(v as T)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${v}")`);
      return dflt;
    }
    return v as T;
  }

  url(name: string, dflt: string | null, protocols: string[]): string | null {
    const v = this.raw(name);
    if (v === undefined) return dflt;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) throw new Error('protocol');
      return name.endsWith('_URL') && ['http:', 'https:'].includes(u.protocol) ? v.replace(/\/+$/, '') : v;
    } catch {
      this.problems.push(
        `${name} must be a URL with scheme ${protocols.map((p) => p.replace(':', '')).join(' or ')} (got "${redactUrlPasswords(v)}")`,
      );
      return dflt;
    }
  }

  secret(name: keyof typeof DEV_SECRETS, production: boolean, check: (v: string) => string | null): string {
    const v = this.raw(name);
    if (v === undefined) {
      if (production) this.problems.push(`${name} must be set in production (no default secrets)`);
      return DEV_SECRETS[name];
    }
    const problem = check(v);
    if (problem) this.problems.push(`${name} ${problem}`);
    return v;
  }
}

const minLength = (n: number) => (v: string) => (v.length >= n ? null : `must be at least ${n} characters`);

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const r = new Reader(env);
  const nodeEnv = r.oneOf('NODE_ENV', 'development', ['development', 'production', 'test'] as const);
  const production = nodeEnv === 'production';
  const port = r.int('PORT', 3000, 0, 65535);
  const baseUrl = r.url('BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!;
  const surfacesRaw = r.str('SURFACES', ALL_SURFACES.join(','));
  const surfaces = surfacesRaw.split(',').map((s) => s.trim()) as Surface[];
  const badSurface = surfaces.find((s) => !ALL_SURFACES.includes(s));
  if (badSurface !== undefined)
    r.problems.push(`SURFACES must list only ${ALL_SURFACES.join(', ')} (got "${badSurface}")`);
  else if (surfaces.includes('mcp') && !surfaces.includes('visitor') && !surfaces.includes('public'))
    r.problems.push(
      'SURFACES: `mcp` (the tool servers over /v1 and /public/v1) needs `visitor` or `public` too',
    );
  const databaseUrl = r.url('DATABASE_URL', null, ['postgres:', 'postgresql:']);
  const pgDir = r.str('EMBEDDED_PG_DIR', '.data/pg');
  const filesDir = r.str('FILES_DIR', '.data/files');

  const config: Config = {
    nodeEnv,
    host: r.str('HOST', '127.0.0.1'),
    port,
    baseUrl,
    authUrl: r.url('AUTH_URL', baseUrl, ['http:', 'https:'])!,
    appUrl: r.url('APP_URL', baseUrl, ['http:', 'https:'])!,
    docsUrl: r.url('DOCS_URL', `${baseUrl}/docs`, ['http:', 'https:'])!,
    siteUrl: r.url('SITE_URL', baseUrl, ['http:', 'https:'])!,
    databaseUrl,
    databaseReadUrl: r.url('DATABASE_READ_URL', null, ['postgres:', 'postgresql:']),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 500),
    embeddedPg: {
      dir: isAbsolute(pgDir) ? pgDir : resolve(cwd, pgDir),
      port: r.int('EMBEDDED_PG_PORT', 54329, 1, 65535),
      password: r.secret('EMBEDDED_PG_PASSWORD', production && databaseUrl === null, minLength(8)),
    },
    redisUrl: r.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'])!,
    redisKeyPrefix: r.str('REDIS_KEY_PREFIX', 'gh'),
    logLevel: r.oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug'] as const),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    jsonMaxDepth: r.int('JSON_MAX_DEPTH', 64, 2, 1000),
    http: {
      headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      requestTimeoutMs: r.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
      keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000),
      maxConnections: r.int('HTTP_MAX_CONNECTIONS', 4096, 1, 1_000_000),
    },
    trustProxy: r.bool('TRUST_PROXY', false),
    surfaces,
    runWorker: r.bool('RUN_WORKER', true),
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    requestLog: {
      retentionDays: r.int('REQUEST_LOG_RETENTION_DAYS', 30, 1, 3650),
      flushMs: r.int('REQUEST_LOG_FLUSH_MS', 200, 10, 60_000),
      batchSize: r.int('REQUEST_LOG_BATCH_SIZE', 500, 1, 10_000),
      maxBuffer: r.int('REQUEST_LOG_MAX_BUFFER', 50_000, 100, 10_000_000),
    },
    secrets: {
      operatorToken: r.secret('OPERATOR_TOKEN', production, minLength(24)),
      sessionSecret: r.secret('SESSION_SECRET', production, minLength(32)),
      encryptionKey: r.secret('ENCRYPTION_KEY', production, (v) =>
        Buffer.from(v, 'base64').length === 32 ? null : 'must be the base64 encoding of exactly 32 bytes',
      ),
    },
    oauth: {
      cookieKeys: r
        .secret('OAUTH_COOKIE_KEYS', production, (v) =>
          v.split(',').every((k) => k.trim().length >= 32)
            ? null
            : 'must list keys of at least 32 characters each',
        )
        .split(',')
        .map((k) => k.trim()),
      signingKey: Buffer.from(
        r.secret('OAUTH_SIGNING_KEY', production, (v) =>
          Buffer.from(v, 'base64').length === 32 ? null : 'must be the base64 encoding of exactly 32 bytes',
        ),
        'base64',
      ),
      metadataMaxBytes: r.int('OAUTH_METADATA_MAX_BYTES', 5120, 256, 1024 * 1024),
      metadataTimeoutMs: r.int('OAUTH_METADATA_TIMEOUT_MS', 2500, 100, 30_000),
      metadataCacheSeconds: r.int('OAUTH_METADATA_CACHE_SECONDS', 3600, 60, 7 * 86_400),
      allowLocalMetadata: r.bool('OAUTH_ALLOW_LOCAL_METADATA', false),
    },
    webhooks: {
      allowLocalTargets: r.bool('WEBHOOK_ALLOW_LOCAL_TARGETS', false),
      timeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
      secretOverlapHours: r.int('WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
      sweepMs: r.int('WEBHOOK_SWEEP_MS', 5_000, 50, 3_600_000),
      concurrency: r.int('WEBHOOK_CONCURRENCY', 50, 1, 1000),
    },
    visits: { noShowGraceMinutes: r.int('VISIT_NO_SHOW_GRACE_MINUTES', 120, 0, 7 * 24 * 60) },
    files: {
      driver: r.oneOf('FILES_DRIVER', 'local', ['local', 's3'] as const),
      dir: isAbsolute(filesDir) ? filesDir : resolve(cwd, filesDir),
      linkTtlSeconds: r.int('FILES_LINK_TTL_SECONDS', 300, 10, 7 * 24 * 3600),
      s3: {
        bucket: r.str('FILES_S3_BUCKET', 'gatehouse-files'),
        region: r.str('FILES_S3_REGION', 'us-east-1'),
        endpoint: r.url('FILES_S3_ENDPOINT', null, ['http:', 'https:']),
        forcePathStyle: r.bool('FILES_S3_FORCE_PATH_STYLE', false),
        accessKeyId: r.raw('FILES_S3_ACCESS_KEY_ID') ?? null,
        secretAccessKey: r.raw('FILES_S3_SECRET_ACCESS_KEY') ?? null,
      },
    },
    messages: {
      providers: {
        email: r.str('MESSAGE_PROVIDER_EMAIL', 'log'),
        sms: r.str('MESSAGE_PROVIDER_SMS', 'log'),
        whatsapp: r.str('MESSAGE_PROVIDER_WHATSAPP', 'log'),
      },
    },
    testModeRatePerMinute: r.int('TEST_MODE_RATE_PER_MINUTE', 100, 1, 100_000_000),
    publicRates: {
      keylessPerMinute: r.int('PUBLIC_KEYLESS_RATE_PER_MINUTE', 30, 1, 100_000_000),
      keyedPerMinute: r.int('PUBLIC_KEYED_RATE_PER_MINUTE', 600, 1, 100_000_000),
    },
    seedOnFirstStart: r.bool('SEED_ON_FIRST_START', !production),
  };
  if (production && config.oauth.allowLocalMetadata) {
    r.problems.push('OAUTH_ALLOW_LOCAL_METADATA must not be true in production');
  }
  if (production && config.webhooks.allowLocalTargets) {
    r.problems.push('WEBHOOK_ALLOW_LOCAL_TARGETS must not be true in production');
  }
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    r.problems.push('HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** The README configuration table, generated from the spec so the two cannot drift. */
export function configMarkdownTable(): string {
  const rows = CONFIG_SPEC.map((v) => `| \`${v.name}\` | ${v.description} | ${v.default ?? ''} |`);
  return ['| Variable | Meaning | Default |', '|---|---|---|', ...rows].join('\n');
}

export const REDACTED = '[redacted]';

/** `scheme://user:password@host` → `scheme://user:[redacted]@host`, for every URL in `text`. */
export function redactUrlPasswords(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#]*@/gi, `$1${REDACTED}@`);
}

/** Every string value of a config, nested ones included. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) return [];
  return Object.values(v).flatMap(strings);
}

/** The ways key bytes get printed: hex, base64 (padded or not), base64url, and a Buffer's JSON `data` list. */
function byteForms(bytes: Buffer): string[] {
  const b64 = bytes.toString('base64');
  return [bytes.toString('hex'), b64, b64.replace(/=+$/, ''), bytes.toString('base64url'), bytes.join(',')];
}

/** A secret string as it may appear in text: itself, URL-encoded, and, when it is base64 of key bytes, those. */
function textForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret)];
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length >= 16 && bytes.toString('base64').replace(/=+$/, '') === secret.replace(/=+$/, ''))
    forms.push(...byteForms(bytes));
  return forms;
}

/**
 * The secret values of a loaded config in every form worth searching text for: the settings CONFIG_SPEC marks
 * secret and the password of every URL setting. The development defaults are left out (they are in the source,
 * and short words such as the embedded password would mangle ordinary log lines), as are values under 6 characters
 * (a URL's password is still redacted inside the URL).
 */
function secretTexts(config: Config): string[] {
  const dev = new Set(Object.values(DEV_SECRETS).flatMap(textForms));
  const values = CONFIG_SPEC.flatMap((v) => {
    const value = v.secret?.(config);
    if (value === null || value === undefined) return [];
    if (Buffer.isBuffer(value)) return byteForms(value);
    return (Array.isArray(value) ? value : [value]).flatMap(textForms);
  });
  const passwords = strings(config).flatMap((text) => {
    try {
      const { password } = new URL(text);
      return password ? [password, decodeURIComponent(password)] : [];
    } catch {
      return [];
    }
  });
  return [...new Set([...values, ...passwords])]
    .filter((t) => t.length >= 6 && !dev.has(t))
    .sort((a, b) => b.length - a.length);
}

/**
 * A function that hides the config's secrets in any text before it is printed (log lines, error messages and
 * stacks): URL passwords, then every secret value (and its byte encodings) wherever it occurs.
 */
export function configRedactor(config: Config): (text: string) => string {
  const secrets = secretTexts(config);
  return (text) => secrets.reduce((t, s) => t.split(s).join(REDACTED), redactUrlPasswords(text));
}

/** The config as the CLI's `config` prints it: every secret setting `[redacted]`, URLs without passwords. */
export function redactedConfig(config: Config): unknown {
  const secrets = new Set<unknown>(CONFIG_SPEC.map((v) => v.secret?.(config)).filter((v) => v != null));
  const redactText = configRedactor(config);
  const walk = (v: unknown): unknown => {
    if (v === null || v === undefined) return v;
    if (secrets.has(v) || Buffer.isBuffer(v)) return REDACTED;
    if (typeof v === 'string') return redactText(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(config);
}
