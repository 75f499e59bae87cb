import fc from 'fast-check';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { createPerson, registerApp } from '../support/oauth-fixtures';
import { call, createOrg } from '../support/platform-fixtures';
import { createEndpoint } from '../support/webhook-fixtures';
import { WebhookReceiver } from '../support/webhook-receiver';
import { contentSeeder } from '../../src/content/content.seeder';
import { PublicKeysService } from '../../src/content/platform/public-keys.service';

/**
 * Standing guard (issue 24 item 10a): requests generated with fast-check from the two served OpenAPI documents —
 * every operation, its documented path, query and body shapes filled with hostile values (lone surrogates, NUL,
 * malformed percent-escapes, numbers that are not decimal, deep or malformed JSON, invalid UTF-8, wrong content
 * types, unknown parameters, real and made-up ids, good and bad credentials, other methods). No answer may be a 5xx,
 * and no body may show a stack trace, SQL or a file path.
 *
 * The OAuth endpoints (`/oauth/token`, `/oauth/revoke`, `/oauth/register`, `/oauth/authorize`; issue "Hardening,
 * third round" item 13) are in no OpenAPI document and parse their own forms and JSON: they are fuzzed in their own
 * formats (form fields, Basic credentials, client metadata, authorization query strings), and every JSON answer
 * that is not a success must be an OAuth error (`error`).
 *
 * Bounded by the number of runs (FUZZ_RUNS per operation, default 60), not by time, so a loaded machine is slower,
 * never flakier. A failure prints fast-check's seed and the shrunk request; FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Operation {
  method: string;
  /** The full path template, e.g. /v1/visits/{visit_id}. */
  path: string;
  pathParams: string[];
  query: string[];
  /** Property names of the JSON request body, when the operation takes one. */
  body: string[] | null;
  surface: 'public' | 'visitor';
  /** The operation answers with a `text/event-stream` that stays open (GET /v1/events/stream). */
  stream: boolean;
}

const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat \S+ \((?:\/|node:|file:)[^)]*:\d+:\d+\)|\n\s+at \S+:\d+:\d+/],
  [
    'SQL',
    /\b(SELECT|INSERT|UPDATE|DELETE)\b[^"]{0,200}\b(FROM|INTO|SET|WHERE)\b|syntax error at or near|relation "|violates \w+ constraint|QueryFailedError/,
  ],
  ['file path', /(^|[\s"'(])\/(work|home|usr|src|dist|node_modules|tmp)\/[\w./-]+|\.(ts|js):\d+/],
];

/** The operations of a served document, with `$ref`s of parameters and bodies resolved. */
function operations(doc: Json, surface: Operation['surface']): Operation[] {
  const prefix = new URL(doc.servers?.[0]?.url ?? 'http://x/', 'http://x').pathname.replace(/\/$/, '');
  const resolve = (node: Json | undefined): Json | undefined => {
    let n = node;
    for (let i = 0; n?.$ref && i < 10; i++)
      n = (n.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o?.[k], doc);
    return n;
  };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const [method, op] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
      const params = ((op.parameters ?? []) as Json[]).map((p) => resolve(p)!);
      const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
      const props = new Set<string>(Object.keys(schema?.properties ?? {}));
      for (const part of (schema?.allOf ?? []) as Json[])
        for (const k of Object.keys(resolve(part)?.properties ?? {})) props.add(k);
      out.push({
        method: method.toUpperCase(),
        path: `${prefix}${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name as string),
        query: params.filter((p) => p.in === 'query').map((p) => p.name as string),
        body: op.requestBody ? [...props] : null,
        surface,
        stream: !!op.responses?.['200']?.content?.['text/event-stream'],
      });
    }
  return out;
}

/** Percent-encodes what can be; a string holding a lone surrogate is sent as its raw UTF-16 escape pieces. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[^\w-]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0').slice(-2)}`);
  }
}

describe('standing fuzz suite: both served OpenAPI documents', () => {
  let t: TestApp;
  let pg: Client;
  let receiver: WebhookReceiver;
  const stats = { requests: 0, statuses: {} as Record<number, number>, operations: 0 };

  const known: string[] = [];
  const creds = { secret: '', publishable: '', partner: '' };
  let ops: Operation[] = [];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: {
        RUN_WORKER: 'false',
        TEST_MODE_RATE_PER_MINUTE: '100000000',
        PUBLIC_KEYLESS_RATE_PER_MINUTE: '100000000',
        PUBLIC_KEYED_RATE_PER_MINUTE: '100000000',
        WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    await contentSeeder.run(t.app, { scale: 1, log: () => undefined });
    creds.partner = (await t.app.get(PublicKeysService).create('Fuzz partner')).key;
    const org = await createOrg(t.app, 'pro');
    creds.secret = await org.key();
    creds.publishable = await org.key({ kind: 'publishable' });
    const site = org.sites.find((s) => !s.livemode)!.id;
    const host = (
      await call(t.app, 'POST', '/v1/people', {
        key: creds.secret,
        body: { name: 'Fuzz Host', email: 'host@fuzz.test' },
      })
    ).json().id as string;
    const visit = (
      await call(t.app, 'POST', '/v1/visits', {
        key: creds.secret,
        body: {
          site_id: site,
          host_id: host,
          type: 'meeting',
          visitor: { name: 'Fuzz Guest', phone: '+233244777001' },
        },
      })
    ).json();
    const endpoint = await createEndpoint(
      t.app,
      t.config,
      { organisationId: org.id, livemode: false },
      receiver.url('/ok/fuzz'),
      ['*'],
    );
    const event = (
      await pg.query(`SELECT id FROM visitor.event WHERE organisation_id = $1 LIMIT 1`, [org.id])
    ).rows[0];
    const slugs = await pg.query(
      `(SELECT slug FROM content.campaign WHERE status = 'active' LIMIT 2)
       UNION ALL (SELECT slug FROM content.petition WHERE status = 'active' LIMIT 1)
       UNION ALL (SELECT slug FROM content.durbar LIMIT 2)
       UNION ALL (SELECT username FROM content.account WHERE public_profile LIMIT 1)`,
    );
    known.push(site, host, visit.id, visit.visitor.id, endpoint.id, event.id, 'meeting', 'visit', 'person');
    known.push(...slugs.rows.map((r: { slug: string }) => r.slug));
    for (const [url, surface] of [
      ['/public/v1/openapi.json', 'public'],
      ['/v1/openapi.json', 'visitor'],
    ] as const) {
      const doc = (await t.app.inject({ method: 'GET', url })).json();
      ops = ops.concat(operations(doc, surface));
    }
  }, 180_000);

  afterAll(async () => {
    // The figures of the run (issue 24 asks for them): requests, answers by status.
    console.log(
      `fuzz: ${stats.requests} requests over ${stats.operations} operations; statuses ${JSON.stringify(stats.statuses)}`,
    );
    await pg?.end();
    await t?.close();
    await receiver?.stop();
  });

  it('serves both documents with the operations the issue counted', () => {
    expect(ops.length).toBeGreaterThanOrEqual(60);
  });

  // Hostile values: fast-check strings of any code unit (lone surrogates, NUL), and hand-picked troublemakers.
  const nasty = fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x\udc00y',
    '%00',
    '%FF',
    '%ED%A0%80',
    '%',
    '0x10',
    '1e2',
    '050',
    '-1',
    '9'.repeat(30),
    'NaN',
    'null',
    'true',
    '__proto__',
    'constructor',
    "'; DROP TABLE x; --",
    '../../etc/passwd',
    'a'.repeat(5000),
    '2026-02-30',
    '2026-12-31T25:00:00Z',
    '+233244000000',
    'https://[::1]/',
    'https://127.0.0.1/',
  );
  /** Content types of a JSON body: mostly right, sometimes wrong or missing. */
  const jsonContentType = () =>
    fc.constantFrom(
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      null,
    );
  /** Escapes sent as they are: malformed, NUL, a surrogate's bytes, encoded slashes and dots. */
  const rawEscape = fc.constantFrom('%FF', '%ED%A0%80', '%00', '%', '%zz', '%2F', '..', '%20', '%2e%2e', '+');
  const text = () =>
    fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
      { weight: 3, arbitrary: nasty },
      { weight: 2, arbitrary: fc.constantFrom(...(known.length ? known : ['x'])) },
    );
  const value = () =>
    fc.oneof(
      { weight: 4, arbitrary: text() },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean()) },
      { weight: 1, arbitrary: fc.array(text(), { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.dictionary(text(), text(), { maxKeys: 4 }) },
    );

  function requestOf(op: Operation) {
    const pathValue = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...known).map(enc) },
      { weight: 2, arbitrary: text().map(enc) },
      { weight: 1, arbitrary: rawEscape },
    );
    const queryPair = fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...(op.query.length ? op.query : ['limit'])) },
        { weight: 1, arbitrary: text() },
      ),
      fc.oneof({ weight: 3, arbitrary: text().map(enc) }, { weight: 1, arbitrary: rawEscape }),
    );
    const bodyProps = op.body?.length ? op.body : ['name'];
    const payload = fc.oneof(
      {
        weight: 5,
        arbitrary: fc
          .dictionary(
            fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom(...bodyProps) },
              { weight: 1, arbitrary: text() },
            ),
            value(),
            { maxKeys: 6 },
          )
          .map((o) => JSON.stringify(o)),
      },
      { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | Buffer>(
          '{',
          '{"a":',
          '[1,]',
          '{"__proto__":{"polluted":1}}',
          '{"constructor":{"prototype":{"x":1}}}',
          `${'['.repeat(5000)}${']'.repeat(5000)}`,
          `{"a":"${'\\ud800'}"}`,
          Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
          '',
        ),
      },
    );
    const credential =
      op.surface === 'visitor'
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constant({ authorization: `Bearer ${creds.secret}` }) },
            { weight: 1, arbitrary: fc.constant({ authorization: `Bearer ${creds.publishable}` }) },
            {
              weight: 1,
              arbitrary: text().map((s) => ({ authorization: `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}` })),
            },
            { weight: 1, arbitrary: fc.constant({}) },
          )
        : fc.oneof(
            { weight: 4, arbitrary: fc.constant({}) },
            { weight: 2, arbitrary: fc.constant({ 'x-api-key': creds.partner }) },
            {
              weight: 1,
              arbitrary: text().map((s) => ({ 'x-api-key': s.replace(/[^\x21-\x7e]/g, '') || 'x' })),
            },
          );
    return fc.record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(op.method) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
      ),
      params: fc.array(pathValue, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
      query: fc.array(queryPair, { maxLength: 4 }),
      payload: fc.option(payload, { freq: 4 }),
      contentType: jsonContentType(),
      credential,
      idempotencyKey: fc.oneof(
        fc.uuid(),
        fc.constant(null),
        text().map((s) => s.replace(/[^\x21-\x7e]/g, '')),
      ),
    });
  }

  /**
   * One request; to a streaming operation its answer is read as a stream: an open event stream (200,
   * `text/event-stream`) is taken as it is and closed at once (its body never ends), any other answer read whole.
   */
  async function injectOnce(
    opts: { method: 'GET'; url: string; headers: Record<string, string>; payload?: string | Buffer },
    stream: boolean,
  ): Promise<{ statusCode: number; body: string }> {
    if (!stream) return t.app.inject(opts);
    const res = await t.app.inject({ ...opts, payloadAsStream: true });
    const body = res.stream();
    if (/^text\/event-stream/.test(String(res.headers['content-type']))) {
      body.destroy();
      return { statusCode: res.statusCode, body: '' };
    }
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(Buffer.from(c as Buffer));
    return { statusCode: res.statusCode, body: Buffer.concat(chunks).toString() };
  }

  it('answers every generated request without a 5xx, a stack, SQL or a file path', async () => {
    const failures: string[] = [];
    for (const op of ops) {
      stats.operations++;
      await fc
        .assert(
          fc.asyncProperty(requestOf(op), async (r) => {
            let i = 0;
            const path = op.path.replace(/\{[^}]+\}/g, () => r.params[i++] ?? 'x');
            const qs = r.query.map(([k, v]) => `${enc(k)}=${v}`).join('&');
            const url = qs ? `${path}?${qs}` : path;
            const headers: Record<string, string> = { ...r.credential };
            if (r.contentType && r.payload !== null) headers['content-type'] = r.contentType;
            if (r.idempotencyKey) headers['idempotency-key'] = r.idempotencyKey;
            const withBody = r.payload !== null && !['GET', 'HEAD'].includes(r.method);
            const res = await injectOnce(
              {
                method: r.method as 'GET',
                url,
                headers,
                ...(withBody ? { payload: r.payload as string | Buffer } : {}),
              },
              op.stream,
            );
            stats.requests++;
            stats.statuses[res.statusCode] = (stats.statuses[res.statusCode] ?? 0) + 1;
            const problems: string[] = [];
            if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
            for (const [what, re] of LEAKS) if (re.test(res.body)) problems.push(`body shows ${what}`);
            if (problems.length) {
              const shown = `${r.method} ${url.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
              failures.push(`${problems.join(', ')}: ${shown}`);
              return false;
            }
            return true;
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        )
        .catch(() => undefined); // collected in `failures`, so every operation is fuzzed and all are reported
    }
    expect(failures).toEqual([]);
    expect(stats.statuses[500] ?? 0).toBe(0);
  }, 600_000);

  describe('the OAuth endpoints', () => {
    const redirectUri = 'https://app.example.com/cb';
    const clients: { client_id: string; client_secret: string | null }[] = [];
    const oauthStats = { requests: 0, statuses: {} as Record<number, number> };

    beforeAll(async () => {
      const org = await createOrg(t.app, 'pro');
      const owner = await createPerson(t, org, 'owner');
      clients.push(await registerApp(t, owner, 'confidential', redirectUri));
      clients.push(await registerApp(t, owner, 'public', redirectUri));
      known.push(...clients.map((c) => c.client_id), redirectUri);
    }, 60_000);

    afterAll(() =>
      console.log(
        `oauth fuzz: ${oauthStats.requests} requests; statuses ${JSON.stringify(oauthStats.statuses)}`,
      ),
    );

    interface OAuthRequest {
      method: string;
      url: string;
      headers: Record<string, string>;
      payload?: string | Buffer;
    }

    /** Sends one request; a problem is a 5xx, a leak, or a JSON error answer without an OAuth `error`. */
    async function send(r: OAuthRequest): Promise<string | null> {
      const res = await t.app.inject({
        method: r.method as 'GET',
        url: r.url,
        headers: r.headers,
        ...(r.payload !== undefined ? { payload: r.payload } : {}),
      });
      oauthStats.requests++;
      oauthStats.statuses[res.statusCode] = (oauthStats.statuses[res.statusCode] ?? 0) + 1;
      const problems: string[] = [];
      if (res.statusCode >= 500) problems.push(`status ${res.statusCode}`);
      for (const [what, re] of LEAKS) if (re.test(res.body)) problems.push(`body shows ${what}`);
      if (res.statusCode >= 400 && /^application\/json/.test(String(res.headers['content-type']))) {
        const body = JSON.parse(res.body) as Json;
        if (typeof body.error !== 'string') problems.push('a JSON error without `error`');
      }
      if (!problems.length) return null;
      const shown = `${r.method} ${r.url.slice(0, 200)} ${String(r.payload ?? '').slice(0, 200)}`;
      return `${problems.join(', ')}: ${shown} → ${res.statusCode} ${res.body.slice(0, 300)}`;
    }

    /** A form field: percent-encoded (a lone surrogate as its raw escape pieces), or a raw escape as it is. */
    const formValue = () =>
      fc.oneof(
        { weight: 4, arbitrary: text().map(enc) },
        { weight: 2, arbitrary: fc.constantFrom('%00', 'x%00y', '%ED%A0%80', '%FF') },
        { weight: 1, arbitrary: rawEscape },
      );
    const form = (names: string[], fixed: fc.Arbitrary<Record<string, string>>) =>
      fc
        .tuple(
          fixed,
          fc.array(
            fc.tuple(
              fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: text() }),
              formValue(),
            ),
            { maxLength: 6 },
          ),
        )
        .map(([base, pairs]) =>
          [
            ...Object.entries(base).map(([k, v]) => `${k}=${enc(v)}`),
            ...pairs.map(([k, v]) => `${enc(k)}=${v}`),
          ].join('&'),
        );
    const clientIds = () =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...clients.map((c) => c.client_id)) },
        { weight: 2, arbitrary: text() },
        {
          weight: 1,
          arbitrary: fc.constantFrom('\u0000', `${clients[0].client_id}\u0000`, '\ud800', 'https://x/\u0000'),
        },
      );
    const basic = () =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant({}) },
        {
          weight: 2,
          arbitrary: fc.constant({
            authorization: `Basic ${Buffer.from(`${clients[0].client_id}:${clients[0].client_secret}`).toString('base64')}`,
          }),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(clientIds(), text()).map(([id, secret]) => ({
            authorization: `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`,
          })),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(clientIds(), text()).map(([id, secret]) => ({
            authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
          })),
        },
        {
          weight: 1,
          arbitrary: text().map((s) => ({ authorization: `Basic ${s.replace(/[^\x21-\x7e]/g, '')}` })),
        },
      );
    const formContentType = () =>
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=utf-8',
        'application/json',
        'text/plain',
        null,
      );
    const post = (
      url: string,
      names: string[],
      fixed: fc.Arbitrary<Record<string, string>>,
    ): fc.Arbitrary<OAuthRequest> =>
      fc
        .record({
          method: fc.oneof(
            { weight: 8, arbitrary: fc.constant('POST') },
            { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'OPTIONS') },
          ),
          body: fc.oneof(
            { weight: 6, arbitrary: form(names, fixed) },
            { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
            { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
          ),
          contentType: formContentType(),
          auth: basic(),
        })
        .map(({ method, body, contentType, auth }) => ({
          method,
          url,
          headers: { ...auth, ...(contentType ? { 'content-type': contentType } : {}) },
          ...(method === 'GET' ? {} : { payload: body }),
        }));

    const tokenRequest = () =>
      post(
        '/oauth/token',
        [
          'grant_type',
          'code',
          'refresh_token',
          'redirect_uri',
          'code_verifier',
          'client_id',
          'client_secret',
          'scope',
          'resource',
        ],
        fc.record({
          grant_type: fc.constantFrom(
            'authorization_code',
            'refresh_token',
            'client_credentials',
            'password',
            '',
          ),
          client_id: clientIds(),
        }),
      );
    const revokeRequest = () =>
      post(
        '/oauth/revoke',
        ['token', 'token_type_hint', 'client_id', 'client_secret'],
        fc.record({
          token: fc.oneof(text(), fc.constantFrom('svc_at_x', 'svc_rt_x', 'svc_ac_x')),
          client_id: clientIds(),
        }),
      );
    const uris = () =>
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(redirectUri, 'http://localhost:7777/cb', 'http://app.example.com/cb'),
        },
        { weight: 2, arbitrary: text() },
      );
    /** Client metadata: the fields a client sends, of every JSON type, and the cases the outside fuzz found. */
    const registerRequest = (): fc.Arbitrary<OAuthRequest> =>
      fc
        .record({
          metadata: fc.dictionary(
            fc.oneof(
              {
                weight: 5,
                arbitrary: fc.constantFrom(
                  'redirect_uris',
                  'client_name',
                  'token_endpoint_auth_method',
                  'grant_types',
                  'response_types',
                  'client_uri',
                  'logo_uri',
                  'scope',
                  'contacts',
                  'jwks',
                  'software_id',
                ),
              },
              { weight: 1, arbitrary: text() },
            ),
            fc.oneof(value(), fc.array(uris(), { maxLength: 3 })),
            { maxKeys: 6 },
          ),
          redirect_uris: fc.oneof(
            fc.array(uris(), { maxLength: 3 }),
            fc.constantFrom<unknown>(true, 123, {}, 'https://app.example.com/cb', null, [null], [{}], [123]),
          ),
          client_name: fc.oneof(text(), fc.constantFrom('\ud800', 'x\udc00y', 'a\u0000b')),
          shape: fc.constantFrom('metadata', 'with-uris', 'with-uris', 'raw'),
          raw: fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ unit: 'binary', maxLength: 60 })),
          contentType: jsonContentType(),
        })
        .map((r) => ({
          method: 'POST',
          url: '/oauth/register',
          headers: r.contentType ? { 'content-type': r.contentType } : ({} as Record<string, string>),
          payload:
            r.shape === 'raw'
              ? r.raw
              : JSON.stringify(
                  r.shape === 'metadata'
                    ? r.metadata
                    : { ...r.metadata, redirect_uris: r.redirect_uris, client_name: r.client_name },
                ),
        }));
    const authorizeRequest = (): fc.Arbitrary<OAuthRequest> =>
      fc
        .record({
          method: fc.constantFrom('GET', 'GET', 'GET', 'POST'),
          base: fc.record({
            client_id: clientIds(),
            redirect_uri: uris(),
            response_type: fc.oneof(fc.constantFrom('code', 'token', 'code id_token'), text()),
            scope: fc.oneof(fc.constantFrom('visits:read', 'organisation:read people:read'), text()),
            code_challenge: fc.oneof(fc.constant('a'.repeat(43)), text()),
            code_challenge_method: fc.constantFrom('S256', 'plain', ''),
          }),
          query: form(
            [
              'state',
              'resource',
              'prompt',
              'response_mode',
              'request',
              'request_uri',
              'nonce',
              'max_age',
              'ui_locales',
            ],
            fc.constant({}),
          ),
        })
        .map(({ method, base, query }): OAuthRequest => {
          const qs = [...Object.entries(base).map(([k, v]) => `${k}=${enc(v)}`), query]
            .filter(Boolean)
            .join('&');
          return method === 'GET'
            ? { method, url: `/oauth/authorize?${qs}`, headers: {} }
            : {
                method,
                url: '/oauth/authorize',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                payload: qs,
              };
        });

    it('answers the cases an outside fuzz found with the OAuth error, never a 500', async () => {
      const [confidential] = clients;
      const formPost = (url: string, body: string, headers: Record<string, string> = {}) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: body,
        });
      const nulBasic = `Basic ${Buffer.from(`a%00b:secret`).toString('base64')}`;
      for (const res of [
        await formPost('/oauth/token', 'grant_type=authorization_code&code=x&redirect_uri=x&client_id=%00'),
        await formPost('/oauth/token', `grant_type=refresh_token&refresh_token=x&client_id=a%00b`),
        await formPost('/oauth/token', 'grant_type=refresh_token&refresh_token=x', {
          authorization: nulBasic,
        }),
        await formPost('/oauth/revoke', 'token=x&client_id=%00'),
      ]) {
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_request' });
      }
      const authorize = await t.app.inject({
        method: 'GET',
        url: `/oauth/authorize?response_type=code&client_id=%00&redirect_uri=${enc(redirectUri)}&scope=visits:read`,
      });
      expect(authorize.statusCode).toBe(400);
      expect(authorize.body).toContain('invalid_request');
      // a NUL in a parameter the engine keeps with the authorization (PostgreSQL's jsonb cannot hold it): the
      // error goes to the app's redirect URI
      const kept = await t.app.inject({
        method: 'GET',
        url: `/oauth/authorize?response_type=code&client_id=${clients[1].client_id}&redirect_uri=${enc(redirectUri)}&scope=visits:read&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256&state=a%00b`,
      });
      expect(kept.statusCode).toBe(303);
      expect(new URL(kept.headers.location as string).searchParams.get('error')).toBe('invalid_request');
      const register = (metadata: Json) =>
        t.app.inject({ method: 'POST', url: '/oauth/register', payload: metadata });
      for (const redirect_uris of [true, 123, {}, 'https://app.example.com/cb', null, [null], [123]]) {
        const res = await register({ redirect_uris, client_name: 'Fuzz' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          error: expect.stringMatching(/^invalid_(client_metadata|redirect_uri)$/),
        });
      }
      for (const client_name of ['\ud800', 'x\udc00y', 'a\u0000b']) {
        const res = await register({ redirect_uris: [redirectUri], client_name });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'invalid_client_metadata' });
      }
      const nulUri = await register({ redirect_uris: [`${redirectUri}\u0000`] });
      expect(nulUri.statusCode).toBe(400);
      expect(nulUri.json()).toHaveProperty('error');
      // a client registered with good metadata still works after all that
      const ok = await register({
        redirect_uris: [redirectUri],
        client_name: 'Fuzz app',
        token_endpoint_auth_method: 'none',
      });
      expect(ok.statusCode).toBe(201);
      expect(confidential.client_id).toBeDefined();
    });

    it('answers every generated OAuth request without a 5xx, a stack, SQL or a file path', async () => {
      const failures: string[] = [];
      for (const [name, arbitrary] of [
        ['token', tokenRequest()],
        ['revoke', revokeRequest()],
        ['register', registerRequest()],
        ['authorize', authorizeRequest()],
      ] as const) {
        await fc
          .assert(
            fc.asyncProperty(arbitrary, async (r) => {
              const problem = await send(r);
              if (problem) failures.push(`${name}: ${problem}`);
              return problem === null;
            }),
            { numRuns: RUNS * 3, seed: SEED, endOnFailure: true },
          )
          .catch(() => undefined);
      }
      expect(failures).toEqual([]);
    }, 600_000);
  });
});
