import type { Client } from 'pg';
import { bootContentApp, ContentTestApp, PUBLIC_LISTS } from '../support/content-fixtures';

/**
 * The privacy rule of the whole public API: after seeding both sides, crawl every list (every page) and every
 * detail, and find no private value of any table anywhere in any body.
 */
describe('public content API: privacy crawl of every endpoint', () => {
  let app: ContentTestApp;
  let pg: Client;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ pg } = app);
  });
  afterAll(() => app.close());

  it('crawls everything and finds no private value', async () => {
    let requests = 0;
    const transcripts: number[] = [];
    for (const { path: list, detail } of PUBLIC_LISTS) {
      let page = 1;
      for (;;) {
        const body = await app.ok(`/public/v1/${list}?limit=50&page=${page}`);
        requests++;
        for (const item of body.data) {
          if (!detail) continue;
          await app.ok(`/public/v1/${detail(item)}`);
          requests++;
          // validated against the contract (200 or 404); a 200 body is searched like every other
          if (list === 'durbars')
            transcripts.push((await app.get(`/public/v1/durbars/${item.slug}/transcript`)).statusCode);
        }
        if (page * 50 >= body.total) break;
        page++;
      }
    }
    for (const extra of ['marketplace/categories', 'stats']) await app.ok(`/public/v1/${extra}`);
    for (const { username } of (await pg.query(`SELECT username FROM content.account WHERE public_profile`))
      .rows)
      await app.ok(`/public/v1/profiles/${username}`);
    expect(requests).toBeGreaterThan(200);
    expect(transcripts).toContain(200);

    const q = async (sql: string) => (await pg.query(sql)).rows.flatMap((r) => Object.values(r));
    // One client runs one query at a time (pg 9 refuses a second one while the first runs): asked in turn.
    const privateSql = [
      `SELECT id, email, phone FROM content.account`,
      `SELECT donor_name, donor_email, message FROM content.donation`,
      `SELECT signer_name, signer_email, comment FROM content.signature LIMIT 2000`,
      `SELECT internal_notes, organizer_id FROM content.campaign`,
      `SELECT creator_id FROM content.petition`,
      `SELECT online_join_url, organizer_id FROM content.event`,
      `SELECT code FROM content.event_promo_code`,
      `SELECT name, email FROM content.event_rsvp`,
      `SELECT contact_email, billing_notes FROM content.employer`,
      `SELECT applicant_name, applicant_email, applicant_phone, cover_letter FROM content.job_application`,
      `SELECT respondent_email, free_text FROM content.survey_response`,
      `SELECT handle FROM content.durbar_listener`,
      `SELECT stream_playlist_url FROM content.durbar`,
      `SELECT text, speaker_handle FROM content.durbar_transcript_segment WHERE flagged`,
      `SELECT provider_phone, provider_email, provider_whatsapp, provider_id FROM content.listing`,
      `SELECT editor_notes, author_id FROM content.blog_post`,
      `SELECT email, phone FROM content.actor`,
      `SELECT moderation_notes FROM content.post`,
      `SELECT reviewer_name, reviewer_email, body FROM content.review`,
      `SELECT owner_email, owner_id FROM content.review_entity`,
      `SELECT reporter_id, reporter_phone FROM content.safety_hazard`,
      `SELECT id, slug FROM content.campaign WHERE status NOT IN ('active','won')`,
      `SELECT slug FROM content.survey WHERE visibility = 'unlisted' OR attached_to_type IS NOT NULL OR status = 'draft'`,
    ];
    const privateValues: unknown[] = [];
    for (const sql of privateSql) privateValues.push(...(await q(sql)));
    const privateStrings = privateValues.filter((v): v is string => typeof v === 'string' && v.length > 3);
    expect(privateStrings.length).toBeGreaterThan(3000);
    const all = app.bodies.join('\n');
    const leaked = [...new Set(privateStrings)].filter((v) => all.includes(v));
    expect(leaked).toEqual([]);
    for (const pattern of [
      '@private.example',
      'private.example/',
      'Private ',
      'usr_',
      'SECRET-PROMO',
      'listener_private',
      'speaker_private',
    ])
      expect(all).not.toContain(pattern);
  });
});
