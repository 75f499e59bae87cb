import type { Client } from 'pg';
import { bootContentApp, ContentTestApp } from '../support/content-fixtures';

/** /public/v1/marketplace and /public/v1/blog: fields, filters, orders, sanitizing, privacy. */
describe('public content API: marketplace and blog', () => {
  let app: ContentTestApp;
  let pg: Client;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ pg } = app);
  });
  afterAll(() => app.close());

  const ok = (url: string) => app.ok(url);
  const keysOf = (o: object) => Object.keys(o).sort();
  const LISTING_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'listing_type',
    'category_slugs',
    'price_min_pesewas',
    'price_max_pesewas',
    'currency',
    'location',
    'rating',
    'review_count',
    'is_verified',
    'is_featured',
    'cover_url',
    'supports_campaign_id',
    'created_at',
  ].sort();

  it('lists active listings featured first, then newest, with the exact field set', async () => {
    const { rows } = await pg.query(
      `SELECT id FROM content.listing WHERE status = 'active' ORDER BY is_featured DESC, created_at DESC, id DESC`,
    );
    const body = await ok('/public/v1/marketplace/services?limit=50');
    expect(body.data.map((l: { id: string }) => l.id)).toEqual(rows.map((r) => r.id));
    for (const l of body.data) expect(keysOf(l)).toEqual(LISTING_KEYS);
    expect(body.data.some((l: { slug: string | null }) => l.slug === null)).toBe(true);
  });

  it('filters by listing_type, category, location and q; bad values are 400', async () => {
    const goods = await ok('/public/v1/marketplace/services?listing_type=goods&limit=50');
    expect(goods.data.every((l: { listing_type: string }) => l.listing_type === 'goods')).toBe(true);
    const cat = goods.data[0].category_slugs[0];
    const byCat = await ok(`/public/v1/marketplace/services?category=${cat}&limit=50`);
    expect(byCat.data.length).toBeGreaterThan(0);
    expect(byCat.data.every((l: { category_slugs: string[] }) => l.category_slugs.includes(cat))).toBe(true);
    const located = goods.data.find((l: { location: string | null }) => l.location);
    const byLoc = await ok(
      `/public/v1/marketplace/services?location=${encodeURIComponent(located.location.toLowerCase())}`,
    );
    expect(
      byLoc.data.every((l: { location: string }) =>
        l.location.toLowerCase().includes(located.location.toLowerCase()),
      ),
    ).toBe(true);
    const byQ = await ok(`/public/v1/marketplace/services?q=${cat}`);
    expect(byQ.data.length).toBeGreaterThan(0);
    expect((await app.get('/public/v1/marketplace/services?listing_type=both')).statusCode).toBe(400);
    expect((await app.get('/public/v1/marketplace/services?category=Not%20A%20Slug')).statusCode).toBe(400);
  });

  it('a detail has packages, portfolio and languages; no provider contact; drafts and suspended are 404', async () => {
    const { id } = (
      await pg.query(
        `SELECT id FROM content.listing WHERE status = 'active' AND id IN (SELECT listing_id FROM content.listing_package) LIMIT 1`,
      )
    ).rows[0];
    const l = await ok(`/public/v1/marketplace/services/${id}`);
    expect(keysOf(l)).toEqual([...LISTING_KEYS, 'languages', 'packages', 'portfolio_urls'].sort());
    expect(keysOf(l.packages[0])).toEqual([
      'currency',
      'delivery_days',
      'description',
      'name',
      'price_pesewas',
    ]);
    for (const status of ['draft', 'suspended']) {
      const hidden = (await pg.query(`SELECT id FROM content.listing WHERE status = $1 LIMIT 1`, [status]))
        .rows[0];
      await app.notFound(`/public/v1/marketplace/services/${hidden.id}`);
    }
    // a supported campaign is shown only when it is public
    const supported = (await ok('/public/v1/marketplace/services?limit=50')).data.filter(
      (x: { supports_campaign_id: string | null }) => x.supports_campaign_id,
    );
    for (const s of supported) {
      const { rows } = await pg.query(`SELECT status FROM content.campaign WHERE id = $1`, [
        s.supports_campaign_id,
      ]);
      expect(['active', 'won']).toContain(rows[0].status);
    }
  });

  it('categories: {data} only, every category', async () => {
    const body = await ok('/public/v1/marketplace/categories');
    expect(keysOf(body)).toEqual(['data']);
    expect(body.data).toHaveLength(12);
    for (const c of body.data) expect(keysOf(c)).toEqual(['id', 'kind', 'name', 'slug']);
  });

  describe('blog', () => {
    it('lists published posts newest first with blog_categories; the detail uses category and sanitized content', async () => {
      const { rows } = await pg.query(
        `SELECT slug FROM content.blog_post WHERE status = 'published' ORDER BY published_at DESC, id DESC`,
      );
      const body = await ok('/public/v1/blog?limit=50');
      expect(body.data.map((p: { slug: string }) => p.slug)).toEqual(rows.map((r) => r.slug));
      for (const p of body.data)
        expect(keysOf(p)).toEqual([
          'blog_categories',
          'excerpt',
          'featured_image_url',
          'published_at',
          'slug',
          'title',
        ]);
      const withCat = body.data.find((p: { blog_categories: object | null }) => p.blog_categories);
      const detail = await ok(`/public/v1/blog/${withCat.slug}`);
      expect(keysOf(detail)).toEqual([
        'category',
        'content',
        'excerpt',
        'featured_image_url',
        'published_at',
        'slug',
        'title',
      ]);
      expect(detail.category).toEqual(withCat.blog_categories);
      expect(detail.content).toContain('<em>small</em>');
      expect(detail.content).not.toMatch(/<script|onmouseover|onerror|javascript:/i);
      for (const hidden of (await pg.query(`SELECT slug FROM content.blog_post WHERE status <> 'published'`))
        .rows)
        await app.notFound(`/public/v1/blog/${hidden.slug}`);
    });

    it('filters by category id (as the spec says) or by the slug the responses show, to the same posts', async () => {
      const cat = (
        await pg.query(
          `SELECT id, slug FROM content.blog_category WHERE id IN (SELECT category_id FROM content.blog_post WHERE status = 'published') LIMIT 1`,
        )
      ).rows[0];
      const body = await ok(`/public/v1/blog?category=${cat.id}`);
      expect(body.data.length).toBeGreaterThan(0);
      expect(
        body.data.every((p: { blog_categories: { slug: string } }) => p.blog_categories.slug === cat.slug),
      ).toBe(true);
      const { rows: expected } = await pg.query(
        `SELECT slug FROM content.blog_post WHERE status = 'published' AND category_id = $1
          ORDER BY published_at DESC, id DESC`,
        [cat.id],
      );
      expect(body.data.map((p: { slug: string }) => p.slug)).toEqual(expected.map((r) => r.slug));
      expect(await ok(`/public/v1/blog?category=${cat.slug}`)).toEqual(body);
      expect((await ok('/public/v1/blog?category=bcat_nothing')).total).toBe(0);
      expect((await ok('/public/v1/blog?category=no-such-category')).total).toBe(0);
    });
  });

  it('privacy: no provider contact, provider account, editor note or author appears', async () => {
    const list = await ok('/public/v1/marketplace/services?limit=50');
    for (const l of list.data) await ok(`/public/v1/marketplace/services/${l.id}`);
    for (const p of (await ok('/public/v1/blog?limit=50')).data) await ok(`/public/v1/blog/${p.slug}`);
    const all = app.bodies.join('\n');
    const privateValues = [
      ...(
        await pg.query(
          `SELECT provider_phone, provider_email, provider_whatsapp, provider_id FROM content.listing`,
        )
      ).rows.flatMap((r) => [r.provider_phone, r.provider_email, r.provider_whatsapp, r.provider_id]),
      ...(await pg.query(`SELECT editor_notes, author_id FROM content.blog_post`)).rows.flatMap((r) => [
        r.editor_notes,
        r.author_id,
      ]),
    ];
    expect(privateValues.length).toBeGreaterThan(100);
    expect(privateValues.filter((v) => all.includes(v))).toEqual([]);
    for (const pattern of ['@private.example', 'Editor note', 'usr_']) expect(all).not.toContain(pattern);
  });
});
