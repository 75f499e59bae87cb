import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { bootTestApp, CapturingLogger, createTestDatabase, TestApp, TestDatabase } from '../harness';
import { ProbeModule } from '../fixtures/probe.module';
import { call, createOrg } from '../support/platform-fixtures';

const REQ_ID = /^req_[0-9A-Za-z]{22}$/;
const REF = /^ERR-[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$/;

describe('errors on both surfaces', () => {
  let t: TestApp;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    t = await bootTestApp({ extraModules: [ProbeModule], env: { BODY_LIMIT_BYTES: '2048' }, logger });
  });
  afterAll(() => t.close());

  const inject = (opts: Parameters<TestApp['app']['inject']>[0]) => t.app.inject(opts as never);

  function expectProblem(res: Awaited<ReturnType<typeof inject>>, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'code',
      'detail',
      'errors',
      'instance',
      'request_id',
      'status',
      'title',
      'type',
    ]);
    expect(body).toMatchObject({ status, code, type: `${t.config.docsUrl}/errors#${code}` });
    expect(body.request_id).toMatch(REQ_ID);
    expect(res.headers['svc-request-id']).toBe(body.request_id);
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
    return body;
  }

  function expectEnvelope(res: Awaited<ReturnType<typeof inject>>, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(body).toEqual({
      ok: false,
      error: { code, message: expect.any(String), ref: expect.stringMatching(REF) },
    });
    expect(res.headers['svc-request-id']).toMatch(REQ_ID);
    return body;
  }

  describe('/v1 (problem details)', () => {
    it('unknown route → 404 not_found with instance = path', async () => {
      const body = expectProblem(await inject({ method: 'GET', url: '/v1/nope?x=1' }), 404, 'not_found');
      expect(body.instance).toBe('/v1/nope');
    });

    it('unsupported method on a known path → not_found with an Allow header', async () => {
      const res = await inject({ method: 'DELETE', url: '/v1/openapi.json' });
      expectProblem(res, 404, 'not_found');
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('malformed JSON → 400 bad_request at body on a route; an unknown route is not_found first', async () => {
      const post = (url: string) =>
        inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{bad' });
      const body = expectProblem(await post('/v1/__probe'), 400, 'bad_request');
      expect(body.errors).toEqual([{ location: 'body', message: 'must be valid JSON' }]);
      // method (and path) before body (issue 24 item 9)
      expectProblem(await post('/v1/anything'), 404, 'not_found');
    });

    it('wrong Content-Type on a body → 400 bad_request at header.Content-Type', async () => {
      const body = expectProblem(
        await inject({
          method: 'POST',
          url: '/v1/__probe',
          headers: { 'content-type': 'text/plain' },
          payload: 'hello',
        }),
        400,
        'bad_request',
      );
      expect(body.errors).toEqual([{ location: 'header.Content-Type', message: 'must be application/json' }]);
    });

    it('a JSON body that is not an object → 400 bad_request', async () => {
      const body = expectProblem(
        await inject({
          method: 'POST',
          url: '/v1/__probe',
          headers: { 'content-type': 'application/json' },
          payload: '[1,2]',
        }),
        400,
        'bad_request',
      );
      expect(body.errors[0].location).toBe('body');
    });

    it('body over the limit → 400 bad_request naming the limit', async () => {
      const body = expectProblem(
        await inject({
          method: 'POST',
          url: '/v1/__probe',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ purpose: 'x'.repeat(4000) }),
        }),
        400,
        'bad_request',
      );
      expect(body.detail).toContain('2048');
    });

    it('validation failure → 422 validation_failed with body.<path> locations', async () => {
      const body = expectProblem(
        await inject({
          method: 'POST',
          url: '/v1/__probe',
          payload: { visitor: { name: 'Ama', phone: '0244' }, extra: 1 },
        }),
        422,
        'validation_failed',
      );
      const locations = body.errors.map((e: { location: string }) => e.location);
      expect(locations).toEqual(expect.arrayContaining(['body.purpose', 'body.visitor.phone', 'body.extra']));
    });

    it('bad query parameter → 422 validation_failed at query.<name>', async () => {
      const body = expectProblem(
        await inject({ method: 'GET', url: '/v1/__probe?limit=0' }),
        422,
        'validation_failed',
      );
      expect(body.errors.map((e: { location: string }) => e.location)).toEqual(['query.limit']);
    });

    it('malformed query string (bad percent-escape) → 400 bad_request at query.<name>', async () => {
      for (const [url, location] of [
        ['/v1/__probe?limit=%zz', 'query.limit'],
        ['/v1/__probe?limit=5&cursor=%E0%A4%A', 'query.cursor'],
        ['/v1/__probe?q=%FF', 'query.q'],
      ]) {
        const body = expectProblem(await inject({ method: 'GET', url }), 400, 'bad_request');
        expect(body.errors).toEqual([{ location, message: 'must be valid percent-encoded UTF-8' }]);
      }
      // A well-formed escape is fine.
      expect((await inject({ method: 'GET', url: '/v1/__probe?limit=%32' })).json()).toEqual({ limit: 2 });
    });

    it('a malformed id in the path is not_found, like any id that names nothing of yours', async () => {
      const key = await (await createOrg(t.app, 'pro')).key();
      for (const url of ['/v1/visits/not-an-id', '/v1/people/visit_123', '/v1/sites/%20']) {
        const res = await call(t.app, 'GET', url, { key });
        expectProblem(res, 404, 'not_found');
      }
    });

    it('valid request passes through', async () => {
      const res = await inject({
        method: 'POST',
        url: '/v1/__probe',
        payload: { purpose: 'meeting', visitor: { name: 'Ama', phone: '+233244123456' } },
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers['svc-request-id']).toMatch(REQ_ID);
    });

    it('unexpected exception → 500 internal_error without internals; the log has them with the request id', async () => {
      const res = await inject({ method: 'GET', url: '/v1/__probe/boom' });
      const body = expectProblem(res, 500, 'internal_error');
      expect(res.body).not.toMatch(/secret_table|SELECT|password|at .*\.ts/);
      expect(body.errors).toEqual([]);
      const log = logger.text();
      expect(log).toContain(body.request_id);
      expect(log).toContain('secret_table');
      expect(log).toMatch(/probe\.module\.ts/); // the stack
    });
  });

  describe('/public/v1 (envelope)', () => {
    it('unknown route → 404 NOT_FOUND with a ref', async () => {
      expectEnvelope(await inject({ method: 'GET', url: '/public/v1/nope' }), 404, 'NOT_FOUND');
    });

    it('unsupported method → 404 NOT_FOUND with Allow: GET, HEAD', async () => {
      const res = await inject({ method: 'POST', url: '/public/v1/openapi.json' });
      expectEnvelope(res, 404, 'NOT_FOUND');
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('invalid query parameter → 400 VALIDATION_FAILED naming the parameter', async () => {
      const body = expectEnvelope(
        await inject({ method: 'GET', url: '/public/v1/__probe?limit=0' }),
        400,
        'VALIDATION_FAILED',
      );
      expect(body.error.message).toContain('query.limit');
    });

    it('malformed JSON, wrong Content-Type and oversized bodies on a POST → the method is not supported (404)', async () => {
      for (const [headers, payload, status, code] of [
        [{ 'content-type': 'application/json' }, '{bad', 404, 'NOT_FOUND'],
        [{ 'content-type': 'application/json' }, JSON.stringify({ a: 'x'.repeat(4000) }), 404, 'NOT_FOUND'],
        [{ 'content-type': 'text/plain' }, 'x', 404, 'NOT_FOUND'],
      ] as const) {
        // The API is GET-only: the method is refused whatever the body (method before body, issue 24 item 9).
        const res = await inject({
          method: 'POST',
          url: '/public/v1/campaigns',
          headers: { ...headers },
          payload,
        });
        expectEnvelope(res, status, code);
      }
    });

    it('unexpected exception → 500 INTERNAL without internals', async () => {
      const res = await inject({ method: 'GET', url: '/public/v1/__probe/boom' });
      const body = expectEnvelope(res, 500, 'INTERNAL');
      expect(res.body).not.toContain('secret_table');
      expect(body.error.message).not.toMatch(/relation|content\./);
    });

    it('allows cross-origin GET', async () => {
      const res = await inject({
        method: 'GET',
        url: '/public/v1/openapi.json',
        headers: { origin: 'https://example.org' },
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const visitor = await inject({
        method: 'GET',
        url: '/v1/openapi.json',
        headers: { origin: 'https://example.org' },
      });
      expect(visitor.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('every problem type URL resolves to a documented anchor on the errors page', async () => {
    const page = await inject({ method: 'GET', url: '/docs/errors' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    for (const code of [
      'validation_failed',
      'bad_request',
      'unauthorized',
      'forbidden',
      'scope_missing',
      'plan_required',
      'consent_required',
      'not_found',
      'conflict',
      'invalid_state',
      'idempotency_key_reused',
      'location_check_failed',
      'rate_limited',
      'internal_error',
      'unavailable',
    ]) {
      expect(page.body).toContain(`id="${code}"`);
    }
    for (const code of [
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'VALIDATION_FAILED',
      'RATE_LIMITED',
      'FUNDRAISING_DISABLED',
      'FEATURE_DISABLED',
      'SERVICE_UNAVAILABLE',
      'INTERNAL',
    ]) {
      expect(page.body).toContain(`id="${code}"`);
    }
  });

  it('every response carries Svc-Request-Id, including health and docs', async () => {
    for (const url of ['/health/live', '/docs', '/public/v1/openapi.json', '/v1/openapi.json']) {
      const res = await inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['svc-request-id']).toMatch(REQ_ID);
    }
  });
});

/**
 * A database outage is `unavailable` (503, Retry-After), not `internal_error`: the app reaches PostgreSQL through a
 * TCP proxy the test cuts (open connections dropped, new ones refused) and restores.
 */
describe('database outage', () => {
  let db: TestDatabase;
  let t: TestApp;
  const sockets = new Set<Socket>();
  let proxy: Server;
  let port = 0;
  const logger = new CapturingLogger();

  const listen = () =>
    new Promise<void>((resolve) => {
      const target = new URL(process.env.TEST_ADMIN_DATABASE_URL!);
      proxy = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      proxy.listen(port, '127.0.0.1', () => {
        port = (proxy.address() as AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    await listen();
    const viaProxy = new URL(db.url);
    viaProxy.host = `127.0.0.1:${port}`;
    t = await bootTestApp({ db: { ...db, url: viaProxy.toString() }, env: { RUN_WORKER: 'false' }, logger });
  });
  afterAll(async () => {
    await t.close();
    proxy.close();
    await db.drop();
  });

  it('/v1 answers 503 unavailable with Retry-After, /public/v1 a SERVICE_UNAVAILABLE envelope; both recover', async () => {
    const key = await (await createOrg(t.app, 'pro')).key();
    expect((await call(t.app, 'GET', '/v1/organisation', { key })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/public/v1/jobs' })).statusCode).toBe(200);

    await cut();
    const res = await call(t.app, 'GET', '/v1/organisation', { key });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ code: 'unavailable', status: 503, errors: [] });
    expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Connection terminated/);
    const pub = await t.app.inject({ method: 'GET', url: '/public/v1/jobs' });
    expect(pub.statusCode).toBe(503);
    expect(pub.headers['retry-after']).toBe('5');
    expect(pub.json()).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    // The log keeps the cause, tied to the request id.
    expect(logger.text()).toContain(res.json().request_id);
    expect(logger.text()).toMatch(/dependency unavailable/);

    await listen();
    expect((await call(t.app, 'GET', '/v1/organisation', { key })).statusCode).toBe(200);
  });
});
