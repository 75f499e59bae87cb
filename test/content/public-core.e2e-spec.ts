import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { bootContentApp, ContentTestApp, RequestOptions } from '../support/content-fixtures';
import { runCli } from '../support/cli';
import { KEY_CACHE_MS, PublicKeysService } from '../../src/content/platform/public-keys.service';
import { until } from '../support/until';
import { PublicPipeline } from '../../src/content/platform/public-pipeline';
import { OpenApiRegistry } from '../../src/docs/openapi.registry';

/** Campaigns, petitions, profiles, stats; keys, rate limits, caching and privacy of /public/v1. */
describe('public content API: campaigns, petitions, profiles, stats, keys, limits', () => {
  let t: TestApp;
  let pg: Client;
  let ipSeq = 0;

  let app: ContentTestApp;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ t, pg } = app);
  });
  afterAll(() => app.close());

  /** A GET with the partner key (600/min) unless `opts.key` is null (keyless, from its own address). */
  const get = (url: string, opts: RequestOptions = {}) =>
    app.request(url, { ...opts, ip: opts.ip ?? `10.9.0.${++ipSeq}` });
  const ok = (url: string) => app.ok(url);
  const error = async (url: string, status: number, code: string) => {
    const res = await get(url);
    expect({ url, status: res.statusCode, code: res.json().error?.code }).toEqual({ url, status, code });
    expect(res.json()).toEqual({
      ok: false,
      error: { code, message: expect.any(String), ref: expect.stringMatching(/^ERR-/) },
    });
    return res.json().error.message as string;
  };
  const keysOf = (o: object) => Object.keys(o).sort();

  const CAMPAIGN_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'category',
    'status',
    'goal_amount',
    'raised_amount',
    'image_url',
    'country',
    'target_country',
    'target_country_name',
    'progress',
    'goal_reached_at',
    'deadline',
    'created_at',
  ].sort();
  const PETITION_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'category',
    'status',
    'petition_target',
    'signatures_count',
    'target_country',
    'target_country_name',
    'country',
    'image_url',
    'progress',
    'created_at',
  ].sort();

  describe('campaigns', () => {
    it('lists only active and won campaigns, newest first, with the exact field set', async () => {
      const { rows } = await pg.query(
        `SELECT slug FROM content.campaign WHERE status IN ('active','won') ORDER BY created_at DESC, id DESC`,
      );
      const body = await ok('/public/v1/campaigns?limit=50');
      expect(keysOf(body)).toEqual(['data', 'limit', 'page', 'total']);
      expect(body).toMatchObject({ page: 1, limit: 50, total: rows.length });
      expect(body.data.map((c: { slug: string }) => c.slug)).toEqual(rows.map((r) => r.slug));
      for (const c of body.data) {
        expect(keysOf(c)).toEqual(CAMPAIGN_KEYS);
        expect(['active', 'won']).toContain(c.status);
        expect(keysOf(c.progress)).toEqual(['goal_amount', 'percent', 'raised_amount']);
        expect(c.progress.raised_amount).toBe(c.raised_amount);
      }
    });

    it('writes list timestamps as the detail does: the stored instant in UTC, cut to milliseconds', async () => {
      // The list page reads them as ISO text (ISO_TIMESTAMPTZ), the detail as Dates: the same text either way.
      const { rows } = await pg.query<{
        slug: string;
        created_at: Date;
        deadline: Date | null;
        micros: string;
      }>(
        `SELECT slug, created_at, deadline, to_char(created_at, 'US') AS micros FROM content.campaign
          WHERE status IN ('active','won') ORDER BY created_at DESC, id DESC LIMIT 50`,
      );
      expect(rows.some((r) => !r.micros.endsWith('000'))).toBe(true);
      const body = await ok('/public/v1/campaigns?limit=50');
      expect(
        body.data.map((c: { created_at: string; deadline: string | null }) => [c.created_at, c.deadline]),
      ).toEqual(rows.map((r) => [r.created_at.toISOString(), r.deadline?.toISOString() ?? null]));
      const detail = await ok(`/public/v1/campaigns/${rows[0].slug}`);
      expect([detail.created_at, detail.deadline]).toEqual([body.data[0].created_at, body.data[0].deadline]);
    });

    it('filters by category and target country; pages never repeat or skip', async () => {
      const all = await ok('/public/v1/campaigns?limit=50');
      const cat = all.data[0].category;
      const byCat = await ok(`/public/v1/campaigns?category=${cat}`);
      expect(byCat.data.length).toBeGreaterThan(0);
      expect(byCat.data.every((c: { category: string }) => c.category === cat)).toBe(true);
      const cc = all.data.find((c: { target_country: string | null }) => c.target_country).target_country;
      const byCountry = await ok(`/public/v1/campaigns?country=${cc.toLowerCase()}`);
      expect(byCountry.data.every((c: { target_country: string }) => c.target_country === cc)).toBe(true);
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(all.total / 7) + 1; page++)
        seen.push(
          ...(await ok(`/public/v1/campaigns?limit=7&page=${page}`)).data.map((c: { id: string }) => c.id),
        );
      expect(seen).toEqual(all.data.map((c: { id: string }) => c.id));
    });

    it('a detail carries sanitized updates; other states and unknown slugs are 404', async () => {
      const slug = (await pg.query(`SELECT slug FROM content.campaign WHERE status = 'active' LIMIT 1`))
        .rows[0].slug;
      const c = await ok(`/public/v1/campaigns/${slug}`);
      expect(keysOf(c)).toEqual([...CAMPAIGN_KEYS, 'updates'].sort());
      expect(c.updates.length).toBeGreaterThan(0);
      for (const u of c.updates) {
        expect(keysOf(u)).toEqual(['content', 'created_at', 'id', 'media_urls', 'title']);
        expect(u.content).toContain('<strong>');
        expect(u.content).not.toMatch(/<script|onerror|onclick|javascript:|<iframe|style=/i);
      }
      for (const status of ['draft', 'pending_review', 'paused', 'closed', 'rejected']) {
        const hidden = (
          await pg.query(`SELECT slug FROM content.campaign WHERE status = $1 LIMIT 1`, [status])
        ).rows[0];
        await error(`/public/v1/campaigns/${hidden.slug}`, 404, 'NOT_FOUND');
      }
      await error('/public/v1/campaigns/no-such-campaign', 404, 'NOT_FOUND');
    });

    it('refuses bad query parameters with 400 naming the parameter', async () => {
      expect(await error('/public/v1/campaigns?limit=51', 400, 'VALIDATION_FAILED')).toContain('query.limit');
      expect(await error('/public/v1/campaigns?limit=0', 400, 'VALIDATION_FAILED')).toContain('query.limit');
      expect(await error('/public/v1/campaigns?page=0', 400, 'VALIDATION_FAILED')).toContain('query.page');
      expect(await error('/public/v1/campaigns?page=abc', 400, 'VALIDATION_FAILED')).toContain('query.page');
      expect(await error('/public/v1/campaigns?country=GHA', 400, 'VALIDATION_FAILED')).toContain(
        'query.country',
      );
      expect(await error('/public/v1/campaigns?colour=red', 400, 'VALIDATION_FAILED')).toContain(
        'query.colour',
      );
      expect(await error('/public/v1/campaigns?category=%zz', 400, 'VALIDATION_FAILED')).toContain(
        'query.category',
      );
      // A value failing several rules of one parameter is named once, not once per rule.
      expect(await error('/public/v1/campaigns?limit=abc&page=-1', 400, 'VALIDATION_FAILED')).toBe(
        'query.page: must be an integer of 1 or more; query.limit: must be an integer from 1 to 50',
      );
      // PostgreSQL text cannot hold NUL: in a parameter it is refused by name, and no resource has such a slug.
      expect(await error('/public/v1/events?q=a%00b', 400, 'VALIDATION_FAILED')).toBe(
        'query.q: must not contain the NUL character',
      );
      await error('/public/v1/campaigns/x%00', 404, 'NOT_FOUND');
      // No parameter takes a list: one given twice is refused by name.
      expect(await error('/public/v1/campaigns?page=1&page=2', 400, 'VALIDATION_FAILED')).toBe(
        'query.page: must be given once',
      );
      const beyond = await ok('/public/v1/campaigns?page=999');
      expect(beyond.data).toEqual([]);
      expect(beyond.total).toBeGreaterThan(0);
    });

    it('a query string seen before answers as it did, each with its own values; a refused one is refused again', async () => {
      // List DTOs are validated once per query string and remembered (public-dispatch.ts): the second round is
      // answered from memory.
      for (let round = 0; round < 2; round++) {
        expect((await ok('/public/v1/campaigns?limit=3')).data).toHaveLength(3);
        const second = await ok('/public/v1/campaigns?limit=5&page=2');
        expect({ n: second.data.length, page: second.page, limit: second.limit }).toEqual({
          n: 5,
          page: 2,
          limit: 5,
        });
        expect(await error('/public/v1/campaigns?limit=0', 400, 'VALIDATION_FAILED')).toContain(
          'query.limit',
        );
      }
    });
  });

  describe('petitions, profiles, stats', () => {
    it('lists only active petitions; a detail adds momentum; others are 404', async () => {
      const body = await ok('/public/v1/petitions?limit=50');
      const { rows } = await pg.query(
        `SELECT count(*)::int AS n FROM content.petition WHERE status = 'active'`,
      );
      expect(body.total).toBe(rows[0].n);
      for (const p of body.data) {
        expect(keysOf(p)).toEqual(PETITION_KEYS);
        expect(p.status).toBe('active');
        expect(p.progress).toEqual({
          signatures_count: p.signatures_count,
          petition_target: p.petition_target,
          percent: expect.any(Number),
        });
      }
      const top = body.data.reduce((a: { signatures_count: number }, b: { signatures_count: number }) =>
        b.signatures_count > a.signatures_count ? b : a,
      );
      const detail = await ok(`/public/v1/petitions/${top.slug}`);
      expect(keysOf(detail)).toEqual([...PETITION_KEYS, 'momentum'].sort());
      const recent = await pg.query(
        `SELECT count(*)::int AS n FROM content.signature s JOIN content.petition p ON p.id = s.petition_id
          WHERE p.slug = $1 AND s.created_at >= now() - interval '7 days'`,
        [top.slug],
      );
      expect(detail.momentum).toEqual({ signatures_last_7_days: recent.rows[0].n });
      const closed = (await pg.query(`SELECT slug FROM content.petition WHERE status <> 'active' LIMIT 1`))
        .rows[0];
      await error(`/public/v1/petitions/${closed.slug}`, 404, 'NOT_FOUND');
    });

    it('shows public profiles only, without e-mail, phone or internal id', async () => {
      const pub = (
        await pg.query(`SELECT username FROM content.account WHERE public_profile ORDER BY username LIMIT 1`)
      ).rows[0];
      const p = await ok(`/public/v1/profiles/${pub.username}`);
      expect(keysOf(p)).toEqual([
        'account_type',
        'avatar_url',
        'bio',
        'country',
        'full_name',
        'signatures_count',
        'username',
      ]);
      const priv = (await pg.query(`SELECT username FROM content.account WHERE NOT public_profile LIMIT 1`))
        .rows[0];
      await error(`/public/v1/profiles/${priv.username}`, 404, 'NOT_FOUND');
    });

    it('stats are totals over public content', async () => {
      const s = await ok('/public/v1/stats');
      const { rows } = await pg.query(
        `SELECT (SELECT count(*)::int FROM content.campaign WHERE status = 'active') AS a,
                (SELECT sum(signatures_count)::int FROM content.petition WHERE status = 'active') AS sig`,
      );
      expect(s).toEqual({
        total_active_campaigns: rows[0].a,
        total_campaigns: expect.any(Number),
        countries_reached: expect.any(Number),
        total_funds_raised: expect.any(Number),
        total_signatures: rows[0].sig,
      });
    });
  });

  it('privacy: no seeded private value appears in any list or detail body', async () => {
    const bodies: string[] = [];
    const grab = async (url: string) => {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      bodies.push(res.body);
      return res.json();
    };
    for (const list of ['campaigns', 'petitions']) {
      const first = await grab(`/public/v1/${list}?limit=50`);
      for (let page = 2; page <= Math.ceil(first.total / 50); page++)
        await grab(`/public/v1/${list}?limit=50&page=${page}`);
      for (const item of first.data) await grab(`/public/v1/${list}/${item.slug}`);
    }
    for (const { username } of (await pg.query(`SELECT username FROM content.account WHERE public_profile`))
      .rows)
      await grab(`/public/v1/profiles/${username}`);
    await grab('/public/v1/stats');
    const all = bodies.join('\n');
    const privateValues = [
      ...(await pg.query(`SELECT email, phone, id FROM content.account`)).rows.flatMap((r) => [
        r.email,
        r.phone,
        r.id,
      ]),
      ...(await pg.query(`SELECT donor_name, donor_email, message FROM content.donation`)).rows.flatMap(
        (r) => [r.donor_name, r.donor_email, r.message],
      ),
      ...(await pg.query(`SELECT signer_name, signer_email, comment FROM content.signature`)).rows.flatMap(
        (r) => [r.signer_name, r.signer_email, r.comment],
      ),
      ...(await pg.query(`SELECT internal_notes FROM content.campaign`)).rows.map((r) => r.internal_notes),
    ].filter((v): v is string => typeof v === 'string' && v.length > 0);
    expect(privateValues.length).toBeGreaterThan(1000);
    const leaked = privateValues.filter((v) => all.includes(v));
    expect(leaked).toEqual([]);
    for (const pattern of ['@private.example', 'Private donor', 'Private signer', 'Internal note', 'usr_'])
      expect(all).not.toContain(pattern);
  });

  it('every documented /public/v1 operation is served by a direct handler, not through the Nest router', () => {
    const paths = Object.keys(t.app.get(OpenApiRegistry).get('public').paths);
    expect(paths.length).toBeGreaterThan(25);
    const pipeline = t.app.get(PublicPipeline);
    const missing = paths.filter((p) => !pipeline.directFor(`/public/v1${p.replace(/\{(\w+)\}/g, ':$1')}`));
    expect(missing).toEqual([]);
  });

  describe('keys, rate limits and HTTP caching', () => {
    it('keyless: 30 a minute per IP with rate headers; the 31st is 429 RATE_LIMITED with Retry-After', async () => {
      const ip = '10.77.0.1';
      for (let i = 1; i <= 30; i++) {
        const res = await get('/public/v1/stats', { key: null, ip });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('30');
        expect(res.headers['ratelimit-remaining']).toBe(String(30 - i));
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
      const limited = await get('/public/v1/stats', { key: null, ip });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['ratelimit-limit']).toBe('30');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
      // another address is not affected; a keyed client from the same address is not limited at 31
      expect((await get('/public/v1/stats', { key: null, ip: '10.77.0.2' })).statusCode).toBe(200);
      const keyed = await get('/public/v1/stats', { ip });
      expect(keyed.statusCode).toBe(200);
      expect(keyed.headers['ratelimit-limit']).toBe('600');
    });

    it('a keyed client sending 35 requests a minute from one address is not limited (keyless would be at 31)', async () => {
      const { key: partner } = await t.app.get(PublicKeysService).create('Busy partner');
      const ip = '10.79.0.1';
      for (let i = 1; i <= 35; i++) {
        const res = await get('/public/v1/campaigns?limit=1', { key: partner, ip });
        expect({ i, status: res.statusCode }).toEqual({ i, status: 200 });
        expect(res.headers['ratelimit-limit']).toBe('600');
        expect(res.headers['ratelimit-remaining']).toBe(String(600 - i));
      }
      for (let i = 1; i <= 30; i++) await get('/public/v1/campaigns?limit=1', { key: null, ip });
      expect((await get('/public/v1/campaigns?limit=1', { key: null, ip })).statusCode).toBe(429);
      expect((await get('/public/v1/campaigns?limit=1', { key: partner, ip })).statusCode).toBe(200);
    });

    it('two app instances share the keyless counter', async () => {
      const other = await bootTestApp({
        db: t.db,
        env: { RUN_WORKER: 'false', REDIS_KEY_PREFIX: t.config.redisKeyPrefix },
      });
      try {
        const ip = '10.78.0.1';
        for (let i = 0; i < 15; i++) {
          expect((await get('/public/v1/stats', { key: null, ip })).statusCode).toBe(200);
          const res = await other.app.inject({ method: 'GET', url: '/public/v1/stats', remoteAddress: ip });
          expect(res.statusCode).toBe(200);
          app.contract.expectValid(res, 'GET', '/public/v1/stats');
        }
        const limited = await other.app.inject({ method: 'GET', url: '/public/v1/stats', remoteAddress: ip });
        expect(limited.statusCode).toBe(429);
        app.contract.expectValid(limited, 'GET', '/public/v1/stats');
      } finally {
        await other.close();
      }
    });

    it('an unknown or revoked key is UNAUTHORIZED, never downgraded; usage is recorded per key', async () => {
      const bad = await get('/public/v1/stats', { key: 'ghpub_nonsense' });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe('UNAUTHORIZED');
      const svc = t.app.get(PublicKeysService);
      const created = await svc.create('Short-lived partner');
      expect((await get('/public/v1/stats', { key: created.key })).statusCode).toBe(200);
      expect((await get('/public/v1/stats', { key: created.key })).statusCode).toBe(200);
      await svc.flush();
      const use = await pg.query(`SELECT requests::int FROM content.api_key_use_day WHERE key_id = $1`, [
        created.id,
      ]);
      expect(use.rows).toEqual([{ requests: 2 }]);
      await svc.revoke(created.id);
      const revoked = await get('/public/v1/stats', { key: created.key });
      expect(revoked.statusCode).toBe(401);
      expect(revoked.json().error.message).toContain('revoked');
    });

    it('the CLI issues a key once (stored hashed), reports its usage per day and revokes it', async () => {
      const cli = (...args: string[]) => runCli(t.db.url, ...args);
      const created = cli('public-keys', 'create', '--name', 'Civic Data Co');
      expect(created).toMatchObject({
        id: expect.stringMatching(/^pubkey_/),
        name: 'Civic Data Co',
        key: expect.stringMatching(/^ghpub_/),
      });
      const stored = await pg.query(`SELECT * FROM content.api_key WHERE id = $1`, [created.id]);
      expect(JSON.stringify(stored.rows[0])).not.toContain(created.key.slice(18));
      expect((await get('/public/v1/stats', { key: created.key })).statusCode).toBe(200);
      expect((await get('/public/v1/campaigns', { key: created.key })).statusCode).toBe(200);
      await t.app.get(PublicKeysService).flush();
      expect(cli('public-keys', 'usage', created.id)).toEqual({
        key_id: created.id,
        days: [{ day: new Date().toISOString().slice(0, 10), requests: 2 }],
      });
      expect(cli('public-keys', 'list').data.map((k: { id: string }) => k.id)).toContain(created.id);
      expect(cli('public-keys', 'revoke', created.id)).toMatchObject({ revoked_at: expect.any(String) });
      // revoked in another process: this instance trusts the key row it read for at most KEY_CACHE_MS
      await until(
        async () => (await get('/public/v1/stats', { key: created.key })).statusCode === 401,
        KEY_CACHE_MS + 2_000,
      );
    }, 120_000); // four CLI processes, each booting the app's graph: seconds each on a busy machine

    it('strong ETag on 200, If-None-Match gives 304; Cache-Control public without a key, private with one; CORS exposes headers', async () => {
      const first = await get('/public/v1/campaigns', { key: null });
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect(first.headers['cache-control']).toBe('public, max-age=60');
      const again = await get('/public/v1/campaigns', { key: null, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      // RFC 9110 §8.6: a 304 carries no Content-Length unless it is the 200 body's length; it sends none.
      expect(again.headers['content-length']).toBeUndefined();
      expect(again.headers.etag).toBe(etag);
      const changed = await get('/public/v1/campaigns', {
        key: null,
        headers: { 'if-none-match': '"other"' },
      });
      expect(changed.statusCode).toBe(200);
      expect((await get('/public/v1/campaigns')).headers['cache-control']).toBe('private, max-age=60');
      const cors = await get('/public/v1/stats', { key: null, headers: { origin: 'https://news.example' } });
      expect(cors.headers['access-control-allow-origin']).toBe('*');
      const exposed = String(cors.headers['access-control-expose-headers']);
      for (const h of ['ETag', 'Svc-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
        expect(exposed).toContain(h);
    });

    it('the ETag is the SHA-256 of the body it comes with, also when one route answers different bodies in turn', async () => {
      const sha = (body: string) => `"${createHash('sha256').update(body).digest('base64url')}"`;
      const seen = new Map<string, string>();
      for (const url of [
        '/public/v1/campaigns?limit=1',
        '/public/v1/campaigns?limit=2',
        '/public/v1/campaigns?limit=1',
        '/public/v1/stats',
        '/public/v1/stats',
      ]) {
        const res = await get(url);
        expect(res.statusCode).toBe(200);
        expect(res.headers.etag).toBe(sha(res.body));
        if (seen.has(url)) expect(res.headers.etag).toBe(seen.get(url));
        seen.set(url, String(res.headers.etag));
      }
      expect(seen.get('/public/v1/campaigns?limit=1')).not.toBe(seen.get('/public/v1/campaigns?limit=2'));
    });

    it('answers a browser preflight for a keyed GET (x-api-key is not a simple header); other surfaces get none', async () => {
      const preflight = await get('/public/v1/campaigns?limit=1', {
        key: null,
        method: 'OPTIONS',
        headers: {
          origin: 'https://news.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-api-key',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD');
      expect(preflight.headers['access-control-allow-headers']).toBe('x-api-key');
      // a 4xx carries the CORS headers too, so a browser script can read the error envelope
      const refused = await get('/public/v1/campaigns?page=0', {
        key: null,
        headers: { origin: 'https://x.example' },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['access-control-allow-origin']).toBe('*');
      const visitor = await get('/v1/sites', {
        key: null,
        method: 'OPTIONS',
        headers: { origin: 'https://news.example', 'access-control-request-method': 'GET' },
      });
      expect(visitor.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('HEAD carries the same ETag and Cache-Control as GET, and If-None-Match gives 304', async () => {
      for (const url of ['/public/v1/campaigns?limit=3', '/public/v1/stats']) {
        const got = await get(url, { key: null });
        const head = await get(url, { key: null, method: 'HEAD' });
        expect({ url, status: head.statusCode, body: head.body }).toEqual({ url, status: 200, body: '' });
        expect(head.headers.etag).toBe(got.headers.etag);
        expect(head.headers['cache-control']).toBe('public, max-age=60');
        expect((await get(url, { method: 'HEAD' })).headers['cache-control']).toBe('private, max-age=60');
        const cached = await get(url, {
          key: null,
          method: 'HEAD',
          headers: { 'if-none-match': String(got.headers.etag) },
        });
        expect(cached.statusCode).toBe(304);
        expect(cached.headers.etag).toBe(got.headers.etag);
        expect(cached.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
      }
    });
  });
});
