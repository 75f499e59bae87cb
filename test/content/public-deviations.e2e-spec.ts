import { AddressInfo, connect } from 'node:net';
import { bootTestApp, TestApp } from '../harness';
import { bootContentApp, ContentTestApp } from '../support/content-fixtures';
import { KEY_CACHE_MS, PublicKeysService } from '../../src/content/platform/public-keys.service';

/** Sends `request` on a raw connection and returns what came back before the server closed it. */
function raw(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const [head, ...rest] = received.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (!status) return reject(new Error(`no HTTP answer: ${received.slice(0, 200)}`));
      resolve({ status: Number(status[1]), headers: head.toLowerCase(), body: rest.join('\r\n\r\n') });
    });
  });
}

/** Issue 24 item 9: deviations an outside audit of /public/v1 found. */
describe('audit deviations on /public/v1 (issue 24, item 9)', () => {
  let c: ContentTestApp;
  beforeAll(async () => {
    c = await bootContentApp();
  }, 120_000);
  afterAll(() => c.close());

  it('a page past a cached total still answers its rows: a walk after rows were added skips nothing', async () => {
    const first = await c.ok('/public/v1/campaigns?limit=50'); // caches the total
    const cached = first.total as number;
    // 60 more visible campaigns, older than every other, so they are on the pages after the cached total.
    await c.pg.query(
      `INSERT INTO content.campaign (id, slug, title, description, category, status, goal_amount, currency,
                                     organizer_id, created_at)
       SELECT 'cmp_walk' || i, 'walk-' || i, 'Walk ' || i, 'Walked.', 'education', 'active', 1000, 'GHS',
              (SELECT id FROM content.account ORDER BY id LIMIT 1), '2001-01-01'::timestamptz + i * interval '1 second'
         FROM generate_series(1, 60) i`,
    );
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const body = await c.ok(`/public/v1/campaigns?limit=50&page=${page}`);
      const slugs = (body.data as { slug: string }[]).map((d) => d.slug);
      if (slugs.length === 0) break;
      // never lower than what the page proves
      expect({ page, total: body.total >= (page - 1) * 50 + slugs.length }).toEqual({ page, total: true });
      seen.push(...slugs);
    }
    const visible = await c.pg.query(`SELECT slug FROM content.campaign WHERE status IN ('active', 'won')`);
    expect(visible.rows.length).toBe(cached + 60);
    expect(seen.length).toBe(visible.rows.length);
    expect(new Set(seen)).toEqual(new Set(visible.rows.map((r: { slug: string }) => r.slug)));
    // the last page proved the exact total, which later pages answer too
    expect((await c.ok('/public/v1/campaigns?limit=50')).total).toBe(cached + 60);
  });

  it('a total is never lower than what its page proves, even while the cached count lags', async () => {
    const before = await c.ok('/public/v1/durbars?status=scheduled&limit=50'); // caches the total
    expect(before.data.length).toBeLessThan(45);
    await c.pg.query(
      `UPDATE content.durbar SET status = 'scheduled', scheduled_for = now() + interval '1 day'
        WHERE id IN (SELECT id FROM content.durbar WHERE status = 'ended' AND visibility = 'public' ORDER BY id LIMIT 5)`,
    );
    const after = await c.ok('/public/v1/durbars?status=scheduled&limit=50');
    expect(after.data.length).toBe(before.data.length + 5);
    expect(after.total).toBe(after.data.length); // one short page: the page itself proves the total
  });

  it('framework refusals under /public/ are the public envelope with ref, Svc-Request-Id and CORS', async () => {
    const cases = [
      { url: `/public/v1/campaigns/${'a'.repeat(5000)}`, status: 400, code: 'VALIDATION_FAILED' },
      { url: '/public/v1/campaigns/%FF', status: 400, code: 'VALIDATION_FAILED' },
      { url: '/public/v2/campaigns', status: 404, code: 'NOT_FOUND' },
      { url: '/public/', status: 404, code: 'NOT_FOUND' },
      { url: '/public', status: 404, code: 'NOT_FOUND' },
    ];
    for (const { url, status, code } of cases) {
      const res = await c.t.app.inject({ method: 'GET', url });
      const shown = url.slice(0, 40);
      expect({ shown, status: res.statusCode, type: res.headers['content-type'] }).toEqual({
        shown,
        status,
        type: 'application/json; charset=utf-8',
      });
      expect(res.json()).toEqual({
        ok: false,
        error: { code, message: expect.any(String), ref: expect.any(String) },
      });
      expect(res.body.length).toBeLessThan(600); // the path is not echoed
      expect(res.headers['svc-request-id']).toMatch(/^req_/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-expose-headers']).toContain('Svc-Request-Id');
    }
  });

  it('a refusal in a global hook on the CORS preflight route is the envelope, not a 500 (found by the fuzz suite)', async () => {
    const res = await c.t.app.inject({ method: 'OPTIONS', url: '/public/v1/blog?page=%00' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('query.page'),
        ref: expect.any(String),
      },
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('a request line too large for Node (431) is answered in the surface format: /public envelope, /v1 problem', async () => {
    await c.t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (c.t.app.getHttpServer().address() as AddressInfo).port;
    const q = 'x'.repeat(60_000);
    const pub = await raw(port, `GET /public/v1/campaigns?q=${q} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(pub.status).toBe(431);
    expect(JSON.parse(pub.body)).toEqual({
      ok: false,
      error: { code: 'VALIDATION_FAILED', message: expect.any(String), ref: expect.any(String) },
    });
    expect(pub.headers).toContain('svc-request-id: req_');
    expect(pub.headers).toContain('access-control-allow-origin: *');
    const v1 = await raw(port, `GET /v1/people?q=${q} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(v1.status).toBe(431);
    expect(v1.headers).toContain('content-type: application/problem+json');
    expect(v1.headers).toContain('svc-request-id: req_');
    expect(JSON.parse(v1.body)).toMatchObject({
      code: 'bad_request',
      status: 431,
      request_id: expect.any(String),
    });
  });

  it('/v1 framework refusals (long segment, bad escape) are problem details with request ids', async () => {
    for (const [url, status, code] of [
      [`/v1/people/${'a'.repeat(5000)}`, 400, 'bad_request'],
      ['/v1/people/%FF', 400, 'bad_request'],
    ] as const) {
      const res = await c.t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json()).toMatchObject({ code, request_id: res.headers['svc-request-id'] });
      expect(res.json().detail.length).toBeLessThan(300); // the path is not echoed
    }
  });

  it('a transcript exists only once completed, with its completion time (404 otherwise)', async () => {
    const candidates = await c.pg.query(
      `SELECT d.slug, d.id FROM content.durbar d JOIN content.durbar_transcript t ON t.durbar_id = d.id
        WHERE t.status = 'completed' ORDER BY d.id`,
    );
    let found: { slug: string; id: string } | undefined;
    for (const row of candidates.rows as { slug: string; id: string }[]) {
      const res = await c.get(`/public/v1/durbars/${row.slug}/transcript`);
      if (res.statusCode === 200) {
        found = row;
        break;
      }
    }
    expect(found).toBeDefined();
    await c.pg.query(`UPDATE content.durbar_transcript SET completed_at = NULL WHERE durbar_id = $1`, [
      found!.id,
    ]);
    await c.notFound(`/public/v1/durbars/${found!.slug}/transcript`);
    expect((await c.ok(`/public/v1/durbars/${found!.slug}`)).has_transcript).toBe(false);
  });

  it('page and limit take plain decimal integers only (no leading zero, hex, exponent or space)', async () => {
    for (const [name, value] of [
      ['page', '0x10'],
      ['limit', '1e1'],
      ['page', '%201'],
      ['limit', '050'],
      ['page', '01'],
    ])
      await c.invalid(`/public/v1/campaigns?${name}=${value}`, name);
    expect((await c.ok('/public/v1/campaigns?page=1&limit=10')).limit).toBe(10);
  });

  it('POST with a malformed body gets the same method-not-supported answer as with a valid one', async () => {
    for (const url of ['/public/v1/campaigns', '/v1/organisation']) {
      const answer = async (payload: string) => {
        const res = await c.t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload,
        });
        return { status: res.statusCode, allow: res.headers.allow };
      };
      const valid = await answer('{}');
      expect({ url, ...valid }).toEqual({ url, status: 404, allow: expect.stringContaining('GET') });
      expect({ url, ...(await answer('{bad json')) }).toEqual({ url, ...valid });
    }
  });

  it('category filters ignore case, as country does', async () => {
    const lower = await c.ok('/public/v1/campaigns?category=education&limit=5');
    expect(lower.total).toBeGreaterThan(0);
    expect(await c.ok('/public/v1/campaigns?category=EDUCATION&limit=5')).toEqual(lower);
    expect(await c.ok('/public/v1/campaigns?category=Education&country=gh&limit=5')).toEqual(
      await c.ok('/public/v1/campaigns?category=education&country=GH&limit=5'),
    );
    const jobs = await c.ok('/public/v1/jobs?category=engineering&limit=5');
    expect(await c.ok('/public/v1/jobs?category=Engineering&limit=5')).toEqual(jobs);
  });

  it('progress.percent never shows 100 before the goal is reached', async () => {
    await c.pg.query(
      `INSERT INTO content.campaign (id, slug, title, description, category, status, goal_amount, raised_amount,
                                     currency, organizer_id, created_at)
       VALUES ('cmp_almost', 'almost-there', 'Almost', 'Nearly.', 'education', 'active', 28000, 27999, 'GHS',
               (SELECT id FROM content.account ORDER BY id LIMIT 1), now()),
              ('cmp_done', 'goal-reached', 'Done', 'Reached.', 'education', 'won', 28000, 28000, 'GHS',
               (SELECT id FROM content.account ORDER BY id LIMIT 1), now())`,
    );
    expect((await c.ok('/public/v1/campaigns/almost-there')).progress.percent).toBe(99.99);
    expect((await c.ok('/public/v1/campaigns/goal-reached')).progress.percent).toBe(100);
  });

  it('unknown and revoked keys are counted against the client IP’s keyless allowance', async () => {
    const ip = '10.99.0.1';
    const unknown = `ghpub_${'A'.repeat(12)}${'b'.repeat(32)}`;
    const statuses: number[] = [];
    let first: Awaited<ReturnType<ContentTestApp['request']>> | undefined;
    for (let i = 0; i < 31; i++) {
      const res = await c.request('/public/v1/campaigns?limit=1', { key: unknown, ip });
      first ??= res;
      statuses.push(res.statusCode);
    }
    expect(first!.headers['ratelimit-limit']).toBe('30');
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    // the same IP without a key has spent its allowance too
    expect((await c.request('/public/v1/campaigns?limit=1', { key: null, ip })).statusCode).toBe(429);
  });

  describe('revocation on another instance', () => {
    let other: TestApp;
    beforeAll(async () => {
      other = await bootTestApp({
        db: c.t.db,
        env: { RUN_WORKER: 'false', REDIS_KEY_PREFIX: c.t.config.redisKeyPrefix },
      });
    });
    afterAll(() => other.close());

    it('a revoked key is refused by every instance at once (Redis pub/sub), not after the key cache lapses', async () => {
      const created = await c.t.app.get(PublicKeysService).create('Soon revoked');
      const on = (t: TestApp) =>
        t.app.inject({
          method: 'GET',
          url: '/public/v1/stats',
          headers: { 'x-api-key': created.key },
          remoteAddress: '10.98.0.1',
        });
      expect((await on(other)).statusCode).toBe(200); // the other instance caches the key's row now
      await c.t.app.get(PublicKeysService).revoke(created.id);
      const revokedAt = Date.now();
      let status = 0;
      while (Date.now() - revokedAt < KEY_CACHE_MS + 2_000) {
        status = (await on(other)).statusCode;
        if (status === 401) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
      // well inside the cache's lifetime: the announcement, not the expiry, made it refuse
      expect(Date.now() - revokedAt).toBeLessThan(KEY_CACHE_MS / 2);
    });
  });
});
