import type { Client } from 'pg';
import { bootContentApp, ContentTestApp, FIELDS, keysOf } from '../support/content-fixtures';

/** Actors, groups, posts, reviewed entities and safety hazards: visibility, fields, filters, 404s. */
describe('public content API: actors, groups, posts, reviews, safety', () => {
  let app: ContentTestApp;
  let pg: Client;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ pg } = app);
  });
  afterAll(() => app.close());
  const ok = (url: string) => app.ok(url);

  it('actors: public ones only, by handle; filters; 404 for non-public', async () => {
    const body = await ok('/public/v1/actors?limit=50');
    const { rows } = await pg.query(`SELECT handle FROM content.actor WHERE is_public ORDER BY handle`);
    expect(body.data.map((a: { handle: string }) => a.handle)).toEqual(rows.map((r) => r.handle));
    for (const a of body.data) expect(keysOf(a)).toEqual(FIELDS.actor);
    const orgs = await ok('/public/v1/actors?kind=organization');
    expect(orgs.data.every((a: { kind: string }) => a.kind === 'organization')).toBe(true);
    await ok(`/public/v1/actors/${rows[0].handle}`);
    const hidden = (await pg.query(`SELECT handle FROM content.actor WHERE NOT is_public LIMIT 1`)).rows[0];
    await app.notFound(`/public/v1/actors/${hidden.handle}`);
    expect((await app.get('/public/v1/actors?kind=alien')).statusCode).toBe(400);
  });

  it('groups: public ones only; private and secret are 404', async () => {
    const body = await ok('/public/v1/groups?limit=50');
    expect(body.data.length).toBeGreaterThan(0);
    for (const g of body.data) expect(keysOf(g)).toEqual(FIELDS.group);
    for (const { slug } of (
      await pg.query(`SELECT slug FROM content.community_group WHERE visibility <> 'public'`)
    ).rows)
      await app.notFound(`/public/v1/groups/${slug}`);
  });

  it('posts: published posts of public actors outside non-public groups, newest first; attachments keep their type', async () => {
    const { rows } = await pg.query(
      `SELECT p.id FROM content.post p JOIN content.actor a ON a.handle = p.author_handle
        WHERE p.status = 'published' AND a.is_public
          AND (p.group_slug IS NULL OR p.group_slug IN (SELECT slug FROM content.community_group WHERE visibility = 'public'))
        ORDER BY p.created_at DESC, p.id DESC`,
    );
    const body = await ok('/public/v1/posts?limit=50');
    expect(body.data.map((p: { id: string }) => p.id)).toEqual(rows.map((r) => r.id));
    const p = body.data.find((x: { attachments: unknown[] }) => x.attachments.length > 0);
    expect(keysOf(p)).toEqual(FIELDS.post);
    expect(keysOf(p.author)).toEqual(['avatar_url', 'display_name', 'handle', 'kind', 'verified']);
    expect(keysOf(p.attachments[0])).toEqual(['title', 'type', 'url']);
    const types = new Set(
      body.data.flatMap((x: { attachments: { type: string }[] }) => x.attachments.map((a) => a.type)),
    );
    expect(types.size).toBeGreaterThan(3);
    const hidden = (await pg.query(`SELECT id FROM content.post WHERE status <> 'published' LIMIT 1`))
      .rows[0];
    await app.notFound(`/public/v1/posts/${hidden.id}`);
    const inPrivate = (
      await pg.query(
        `SELECT p.id FROM content.post p JOIN content.community_group g ON g.slug = p.group_slug WHERE g.visibility <> 'public' AND p.status = 'published' LIMIT 1`,
      )
    ).rows[0];
    await app.notFound(`/public/v1/posts/${inPrivate.id}`);
    const author = body.data[0].author.handle;
    const byAuthor = await ok(`/public/v1/posts?author=${author}`);
    expect(byAuthor.data.every((x: { author: { handle: string } }) => x.author.handle === author)).toBe(true);
  });

  it('reviewed entities: aggregates only, hidden ones 404; hazards: verified and resolved only, by case number', async () => {
    const entities = await ok('/public/v1/reviews/entities?limit=50');
    for (const e of entities.data) expect(keysOf(e)).toEqual(FIELDS.reviewEntity);
    expect(entities.data.some((e: { rating: number | null }) => e.rating === null)).toBe(true);
    const hiddenEntity = (
      await pg.query(`SELECT slug FROM content.review_entity WHERE status = 'hidden' LIMIT 1`)
    ).rows[0];
    await app.notFound(`/public/v1/reviews/entities/${hiddenEntity.slug}`);
    await ok(`/public/v1/reviews/entities/${entities.data[0].slug}`);

    const hazards = await ok('/public/v1/safety/hazards?limit=50');
    const { rows } = await pg.query(
      `SELECT case_number FROM content.safety_hazard WHERE status IN ('verified','resolved') ORDER BY reported_at DESC, case_number DESC`,
    );
    expect(hazards.data.map((h: { case_number: string }) => h.case_number)).toEqual(
      rows.map((r) => r.case_number),
    );
    const h = await ok(`/public/v1/safety/hazards/${rows[0].case_number}`);
    expect(keysOf(h)).toEqual(FIELDS.hazard);
    const unverified = (
      await pg.query(
        `SELECT case_number FROM content.safety_hazard WHERE status IN ('reported','rejected') LIMIT 1`,
      )
    ).rows[0];
    await app.notFound(`/public/v1/safety/hazards/${unverified.case_number}`);
    const resolved = await ok('/public/v1/safety/hazards?status=resolved');
    expect(resolved.data.every((x: { status: string }) => x.status === 'resolved')).toBe(true);
    expect((await app.get('/public/v1/safety/hazards?status=rejected')).statusCode).toBe(400);
  });
});
