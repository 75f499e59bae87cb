import { FIELDS, keyOf, keysOf, PUBLIC_LISTS, PublicList, useContentApp } from '../support/content-fixtures';

/**
 * One table-driven pass over every /public/v1 endpoint: paging edges, orders, filters, 404s, 400s naming the
 * parameter, unknown parameters on every route, exact key sets and the documented HTTP behaviour. Every
 * response goes through the fixture, which validates it (status, body, headers) against the served document.
 */
describe('public content API: every endpoint, table-driven', () => {
  const app = useContentApp();

  const list = (path: string) => PUBLIC_LISTS.find((l) => l.path === path)!;
  /** Identifiers of every item of a list URL, walking its pages of `limit`. */
  const walk = async (l: PublicList, query = '', limit = 50): Promise<string[]> => {
    const out: string[] = [];
    for (let page = 1; ; page++) {
      const body = await app.ok(`/public/v1/${l.path}?limit=${limit}&page=${page}${query}`);
      out.push(...body.data.map((i: Record<string, unknown>) => keyOf(l, i)));
      if (page * limit >= body.total) {
        expect(out).toHaveLength(body.total);
        return out;
      }
    }
  };
  const rows = async (l: PublicList, where = 'true', params: unknown[] = []) =>
    (
      await app.pg.query(
        `SELECT ${l.key} AS k FROM ${l.table} WHERE ${l.visible} AND ${where} ORDER BY ${l.order}`,
        params,
      )
    ).rows.map((r) => String(r.k));

  describe.each(PUBLIC_LISTS.map((l) => [l.path, l] as const))('/%s', (_path, l) => {
    it('pages never repeat or skip a row; the order is the documented one, tie-breaker included', async () => {
      const expected = await rows(l);
      expect(expected.length).toBeGreaterThan(3);
      expect(await walk(l, '', 3)).toEqual(expected);
    });

    it('paging edges: limit 1 and 50, any page beyond the last empty with the real total; limit 0 or 51, page 0, abc or beyond 2^53 are 400', async () => {
      const one = await app.ok(`/public/v1/${l.path}?limit=1`);
      expect({ n: one.data.length, page: one.page, limit: one.limit }).toEqual({ n: 1, page: 1, limit: 1 });
      const first = await app.ok(`/public/v1/${l.path}`);
      expect({ page: first.page, limit: first.limit }).toEqual({ page: 1, limit: 20 });
      const beyond = Math.ceil(first.total / 50) + 1;
      expect(await app.ok(`/public/v1/${l.path}?limit=50&page=${beyond}`)).toEqual({
        data: [],
        page: beyond,
        limit: 50,
        total: first.total,
      });
      // No bound below what JSON carries exactly (the spec sets none): a deep page is an empty page.
      for (const page of [1_000_001, Number.MAX_SAFE_INTEGER])
        expect(await app.ok(`/public/v1/${l.path}?page=${page}`)).toEqual({
          data: [],
          page,
          limit: 20,
          total: first.total,
        });
      for (const [query, param] of [
        ['limit=0', 'limit'],
        ['limit=51', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=2.5', 'limit'],
        ['page=0', 'page'],
        ['page=abc', 'page'],
        ['page=-1', 'page'],
        ['page=9007199254740992', 'page'],
        ['colour=red', 'colour'],
      ])
        await app.invalid(`/public/v1/${l.path}?${query}`, param);
    });

    it('an unknown identifier is 404 NOT_FOUND', async () => {
      await app.notFound(
        `/public/v1/${l.detail!({ slug: 'zz-unknown', id: 'zz-unknown', handle: 'zz-unknown', case_number: 'HZ-0000-000000' })}`,
      );
    });
  });

  it('every documented route refuses an unknown query parameter with 400 naming it', async () => {
    const paths = Object.keys(app.contract.doc.paths);
    expect(paths.length).toBeGreaterThan(25);
    for (const template of paths) {
      const path = template.replace(/\{[^}]+\}/g, 'anything');
      await app.invalid(`/public/v1${path}?zz_unknown=1`, 'zz_unknown');
      // a list's parameter means nothing to a detail, stats, the categories or the document
      if (!PUBLIC_LISTS.some((l) => `/${l.path}` === template))
        await app.invalid(`/public/v1${path}?page=2`, 'page');
    }
    // several at once are all named
    const message = await app.invalid('/public/v1/stats?a=1&b=2', 'a');
    expect(message).toContain('query.b');
  });

  it.each([
    ['durbars?visibility=unlisted', 'visibility'],
    ['durbars?visibility=public', 'visibility'],
    ['petitions?country=GHA', 'country'],
    ['petitions?category=' + 'x'.repeat(101), 'category'],
    ['blog?category=not%20a%20category', 'category'],
    ['posts?group=Not%20A%20Slug', 'group'],
    ['posts?author=%24%24', 'author'],
    ['groups?category=' + 'x'.repeat(101), 'category'],
    ['reviews/entities?country=Ghana', 'country'],
    ['reviews/entities?kind=' + 'x'.repeat(101), 'kind'],
    ['safety/hazards?hazard_type=meteor', 'hazard_type'],
    ['safety/hazards?severity=extreme', 'severity'],
    ['actors?country=gha', 'country'],
    ['surveys?status=draft', 'status'],
    ['jobs?workplace_type=moon', 'workplace_type'],
    ['marketplace/services?listing_type=both', 'listing_type'],
    ['events?is_online=maybe', 'is_online'],
  ])('/%s is 400 naming query.%s', async (url, param) => {
    await app.invalid(`/public/v1/${url}`, param);
  });

  /** list, parameter, the column it matches, and how (equality or substring). */
  const FILTERS: [string, string, string, '=' | 'substring'][] = [
    ['campaigns', 'category', 'c.category', '='],
    ['campaigns', 'country', 'c.target_country', '='],
    ['petitions', 'category', 'p.category', '='],
    ['petitions', 'country', 'p.target_country', '='],
    ['events', 'category', 'e.category', '='],
    ['events', 'event_type', 'e.event_type', '='],
    ['events', 'location', 'e.location', 'substring'],
    ['jobs', 'category', 'j.category', '='],
    ['jobs', 'location', 'j.location', 'substring'],
    ['jobs', 'employment_type', 'j.employment_type', '='],
    ['jobs', 'seniority', 'j.seniority', '='],
    ['surveys', 'category', 's.category_slug', '='],
    ['surveys', 'status', 's.status', '='],
    ['durbars', 'language', 'd.language', '='],
    ['posts', 'group', 'p.group_slug', '='],
    ['posts', 'author', 'p.author_handle', '='],
    ['groups', 'category', 'g.category', '='],
    ['reviews/entities', 'kind', 'r.kind', '='],
    ['reviews/entities', 'category', 'r.category', '='],
    ['reviews/entities', 'country', 'r.country', '='],
    ['safety/hazards', 'hazard_type', 'h.hazard_type', '='],
    ['safety/hazards', 'severity', 'h.severity', '='],
    ['safety/hazards', 'status', 'h.status', '='],
    ['safety/hazards', 'country', 'h.country', '='],
    ['actors', 'kind', 'a.kind', '='],
    ['actors', 'country', 'a.country', '='],
  ];

  it.each(FILTERS)(
    '/%s?%s= returns exactly the public rows whose %s matches',
    async (path, param, column, how) => {
      const l = list(path);
      // the most common value among public rows (a substring of it for substring filters)
      const { rows: picked } = await app.pg.query(
        `SELECT ${column} AS v FROM ${l.table} WHERE ${l.visible} AND ${column} IS NOT NULL
        GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
      );
      const value: string = how === 'substring' ? picked[0].v.slice(1, 5).toLowerCase() : picked[0].v;
      const condition = how === 'substring' ? `${column} ILIKE '%' || $1 || '%'` : `${column} = $1`;
      const expected = await rows(l, condition, [value]);
      const all = await rows(l);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.length);
      expect(await walk(l, `&${param}=${encodeURIComponent(value)}`)).toEqual(expected);
    },
  );

  it('the durbar order is live first, then soonest scheduled, then most recently ended', async () => {
    const body = await app.ok('/public/v1/durbars?limit=50');
    const rank: Record<string, number> = { live: 0, scheduled: 1, ended: 2 };
    type D = {
      id: string;
      slug: string;
      status: string;
      scheduled_for: string;
      started_at: string;
      ended_at: string;
    };
    const sorted = [...body.data].sort(
      (a: D, b: D) =>
        rank[a.status] - rank[b.status] ||
        (a.status === 'scheduled' ? a.scheduled_for.localeCompare(b.scheduled_for) : 0) ||
        (b.ended_at ?? b.started_at ?? '').localeCompare(a.ended_at ?? a.started_at ?? '') ||
        (a.id < b.id ? -1 : 1),
    );
    expect(body.data.map((d: D) => d.slug)).toEqual(sorted.map((d: D) => d.slug));
    expect(new Set(body.data.map((d: D) => d.status))).toEqual(new Set(['live', 'scheduled', 'ended']));
  });

  it('exact key sets of hazards, survey options, durbar hosts, transcript durbars and community details', async () => {
    for (const h of (await app.ok('/public/v1/safety/hazards?limit=50')).data)
      expect(keysOf(h)).toEqual(FIELDS.hazard);

    const surveys = (await app.ok('/public/v1/surveys?limit=50')).data;
    let options = 0;
    for (const s of surveys.slice(0, 6))
      for (const q of (await app.ok(`/public/v1/surveys/${s.slug}`)).questions)
        for (const o of q.options) {
          expect(keysOf(o)).toEqual(FIELDS.surveyOption);
          options++;
        }
    expect(options).toBeGreaterThan(10);

    const durbars = (await app.ok('/public/v1/durbars?limit=50')).data;
    for (const d of durbars) expect(keysOf(d.host)).toEqual(FIELDS.durbarHost);
    expect(keysOf((await app.ok(`/public/v1/durbars/${durbars[0].slug}`)).host)).toEqual(FIELDS.durbarHost);
    const { rows: done } = await app.pg.query(
      `SELECT d.slug, d.title FROM content.durbar d JOIN content.durbar_transcript t ON t.durbar_id = d.id
        WHERE t.status = 'completed' AND d.is_recorded AND d.status <> 'cancelled' LIMIT 1`,
    );
    const transcript = await app.ok(`/public/v1/durbars/${done[0].slug}/transcript`);
    expect(transcript.durbar).toEqual({
      slug: done[0].slug,
      title: done[0].title,
      url: `/durbars/${done[0].slug}`,
    });

    // a detail is its list item, with exactly these keys
    for (const [path, keys] of [
      ['actors', FIELDS.actor],
      ['groups', FIELDS.group],
      ['posts', FIELDS.post],
      ['reviews/entities', FIELDS.reviewEntity],
      ['safety/hazards', FIELDS.hazard],
    ] as const) {
      const l = list(path);
      for (const item of (await app.ok(`/public/v1/${path}?limit=5`)).data) {
        const detail = await app.ok(`/public/v1/${l.detail!(item)}`);
        expect({ path, keys: keysOf(detail) }).toEqual({ path, keys });
        expect(detail).toEqual(item);
      }
    }
  });

  it('a completed transcript of a room that was not recorded is 404, and the room says it has none', async () => {
    const { rows: picked } = await app.pg.query(
      `SELECT d.id, d.slug FROM content.durbar d WHERE d.status = 'ended' AND NOT d.is_recorded
          AND NOT EXISTS (SELECT 1 FROM content.durbar_transcript t WHERE t.durbar_id = d.id) LIMIT 1`,
    );
    const { id, slug } = picked[0];
    await app.pg.query(
      `INSERT INTO content.durbar_transcript (durbar_id, language, duration_seconds, status, completed_at)
       VALUES ($1, 'en', 600, 'completed', now())`,
      [id],
    );
    await app.pg.query(
      `INSERT INTO content.durbar_transcript_segment (durbar_id, start_ms, end_ms, text, lang, confidence, flagged)
       VALUES ($1, 0, 4999, 'Not for the public', 'en', 0.9, false)`,
      [id],
    );
    await app.notFound(`/public/v1/durbars/${slug}/transcript`);
    expect((await app.ok(`/public/v1/durbars/${slug}`)).has_transcript).toBe(false);
  });

  it('a list that was empty shows a new row on its first page at once; a later page past the total stays empty', async () => {
    const url = '/public/v1/actors?country=ZZ';
    expect(await app.ok(url)).toEqual({ data: [], page: 1, limit: 20, total: 0 });
    await app.pg.query(
      `INSERT INTO content.actor (handle, display_name, kind, verified, country, is_public, email, created_at)
       VALUES ('zz_newcomer', 'Zed Newcomer', 'person', false, 'ZZ', true, 'zz@example.test', now())`,
    );
    try {
      expect((await app.ok(url)).data.map((a: { handle: string }) => a.handle)).toEqual(['zz_newcomer']);
      expect((await app.ok(`${url}&page=2`)).data).toEqual([]);
    } finally {
      await app.pg.query(`DELETE FROM content.actor WHERE handle = 'zz_newcomer'`);
    }
  });

  describe('the served document', () => {
    type Op = {
      parameters: { name?: string; in?: string; $ref?: string; schema?: Record<string, unknown> }[];
      responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
    };
    const ops = () =>
      Object.entries(app.contract.doc.paths).map(
        ([path, item]) => [path, item.get as unknown as Op] as const,
      );

    it('documents 304 (no body) with If-None-Match, and the headers of every status, on every operation', () => {
      for (const [path, op] of ops()) {
        const where = (s: string) => `${path} ${s}`;
        expect(op.parameters).toContainEqual(
          expect.objectContaining({ name: 'If-None-Match', in: 'header' }),
        );
        expect({ at: where('304'), content: op.responses['304']?.content }).toEqual({
          at: where('304'),
          content: undefined,
        });
        const headers = (s: string) => ({
          at: where(s),
          names: Object.keys(op.responses[s]?.headers ?? {}).sort(),
        });
        const rate = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
        expect(headers('200')).toEqual({
          at: where('200'),
          names: ['Cache-Control', 'ETag', ...rate, 'Svc-Request-Id'].sort(),
        });
        expect(headers('304')).toEqual(headers('200') && { at: where('304'), names: headers('200').names });
        expect(headers('429')).toEqual({
          at: where('429'),
          names: [...rate, 'Retry-After', 'Svc-Request-Id'].sort(),
        });
        expect(headers('400')).toEqual({ at: where('400'), names: [...rate, 'Svc-Request-Id'].sort() });
        expect(headers('401')).toEqual({ at: where('401'), names: ['Svc-Request-Id'] });
      }
      const headers = app.contract.doc.components!.headers as Record<string, { required: boolean }>;
      // RateLimit-* are absent only on a request refused before it is counted; the rest always come
      expect(Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, h.required]))).toEqual({
        'RateLimit-Limit': false,
        'RateLimit-Remaining': false,
        'RateLimit-Reset': false,
        'Retry-After': true,
        ETag: true,
        'Cache-Control': true,
        'Svc-Request-Id': true,
      });
    });

    it('states the page bounds (1 to 2^53 - 1) and limit bounds (1 to 50) as integers on every list', () => {
      for (const l of PUBLIC_LISTS) {
        const op = app.contract.doc.paths[`/${l.path}`].get as unknown as Op;
        const schema = (name: string) => op.parameters.find((p) => p.name === name)?.schema;
        expect({ path: l.path, page: schema('page') }).toEqual({
          path: l.path,
          page: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 },
        });
        expect({ path: l.path, limit: schema('limit') }).toEqual({
          path: l.path,
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
        });
      }
    });

    it('the ticket tier schema requires price_pesewas and not price_minor', () => {
      const tier = (
        app.contract.doc.components!.schemas as Record<string, { required: string[]; properties: object }>
      ).TicketTierResponse;
      expect(tier.required).toContain('price_pesewas');
      expect(tier.required).not.toContain('price_minor');
      expect(Object.keys(tier.properties)).toEqual(expect.arrayContaining(['price_pesewas', 'price_minor']));
    });

    it('a 304, 400, 404, 401 and 429 match their documented answers and carry the rate-limit headers', async () => {
      const url = '/public/v1/surveys?limit=2';
      const first = await app.request(url, { key: null, ip: '10.88.0.1' });
      const etag = String(first.headers.etag);
      const notModified = await app.request(url, {
        key: null,
        ip: '10.88.0.1',
        headers: { 'if-none-match': etag },
      });
      expect({
        status: notModified.statusCode,
        body: notModified.body,
        etag: notModified.headers.etag,
      }).toEqual({
        status: 304,
        body: '',
        etag,
      });
      expect(notModified.headers['ratelimit-limit']).toBe('30');
      for (const other of ['/public/v1/surveys?page=0', '/public/v1/surveys/zz-unknown']) {
        const res = await app.request(other);
        expect({ other, status: res.statusCode, limit: res.headers['ratelimit-limit'] }).toEqual({
          other,
          status: other.includes('page') ? 400 : 404,
          limit: '600',
        });
        expect(Number(res.headers['ratelimit-remaining'])).toBeLessThan(600);
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
      const unauthorized = await app.request(url, { key: 'ghpub_unknown' });
      expect(unauthorized.statusCode).toBe(401);
      for (let i = 0; i < 28; i++) await app.request(url, { key: null, ip: '10.88.0.1' });
      const limited = await app.request(url, { key: null, ip: '10.88.0.1' });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['ratelimit-remaining']).toBe('0');
    });
  });
});
