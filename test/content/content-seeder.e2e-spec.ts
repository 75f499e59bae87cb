import { DataSource } from 'typeorm';
import { bootServiceContext, ServiceContext } from '../harness';
import { contentSeeder } from '../../src/content/content.seeder';

/**
 * `seed --scale N` after the first start's scale-1 seed tops every table up consistently: new transcripts get
 * segments (flagged ones included) and new entities get reviews, exactly as a fresh seed at that scale would.
 */
describe('content seeder: a larger scale after a smaller one', () => {
  const contexts: ServiceContext[] = [];
  const seeded = async (...scales: number[]) => {
    const t = await bootServiceContext();
    contexts.push(t);
    for (const scale of scales) await contentSeeder.run(t.app, { scale, log: () => undefined });
    return t.app.get(DataSource);
  };
  afterAll(async () => {
    for (const t of contexts) await t.close();
  });

  /** Segments and reviews as comparable text, in a fixed order. */
  const snapshot = async (ds: DataSource) => ({
    segments: (
      await ds.query(
        `SELECT durbar_id, start_ms, end_ms, text, lang, confidence, speaker_handle, flagged
           FROM content.durbar_transcript_segment ORDER BY durbar_id, start_ms`,
      )
    ).map((r: object) => JSON.stringify(r)),
    reviews: (
      await ds.query(
        `SELECT entity_slug, reviewer_name, reviewer_email, stars, body FROM content.review ORDER BY entity_slug, reviewer_email`,
      )
    ).map((r: object) => JSON.stringify(r)),
    entities: await ds.query(
      `SELECT slug, rating::text, review_count FROM content.review_entity ORDER BY slug`,
    ),
  });

  it('scale 1 then 2: every transcript has its segments (one flagged), every entity its reviews; same as a fresh scale 2', async () => {
    const topped = await seeded(1, 2);
    const transcripts = await topped.query(
      `SELECT t.durbar_id, t.status,
              (SELECT count(*)::int FROM content.durbar_transcript_segment s WHERE s.durbar_id = t.durbar_id) AS segments,
              (SELECT count(*)::int FROM content.durbar_transcript_segment s WHERE s.durbar_id = t.durbar_id AND s.flagged) AS flagged
         FROM content.durbar_transcript t`,
    );
    const completed = transcripts.filter((t: { status: string }) => t.status === 'completed');
    // scale 2 has twice the completed transcripts of scale 1, so some were added by the second run
    expect(completed.length).toBeGreaterThanOrEqual(4);
    for (const t of transcripts)
      expect({ durbar: t.durbar_id, segments: t.segments, flagged: t.flagged }).toEqual({
        durbar: t.durbar_id,
        segments: 6,
        flagged: 1,
      });

    const entities = await topped.query(
      `SELECT e.slug, e.review_count, (SELECT count(*)::int FROM content.review r WHERE r.entity_slug = e.slug) AS n
         FROM content.review_entity e`,
    );
    expect(entities).toHaveLength(40);
    for (const e of entities) {
      const number = Number(e.slug.split('-')[1]);
      const expected = number % 5 === 0 ? 0 : 6;
      expect({ slug: e.slug, n: e.n, count: e.review_count }).toEqual({
        slug: e.slug,
        n: expected,
        count: expected,
      });
    }

    const fresh = await seeded(2);
    expect(await snapshot(topped)).toEqual(await snapshot(fresh));
  }, 60_000);
});
