import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyOf, PUBLIC_LISTS, useContentApp } from '../support/content-fixtures';
import { PublicPipeline } from '../../src/content/platform/public-pipeline';

/**
 * Conditional public reads (If-None-Match) answered from the versions of the tables a route reads
 * (content.table_version, kept by triggers): unchanged → 304; any change to a row a body shows → the old ETag gets
 * a 200 with the new body and a new ETag, on every list and detail route.
 */
describe('public content API: conditional reads from table versions', () => {
  const app = useContentApp();
  const inm = (url: string, etag: string) => app.request(url, { headers: { 'if-none-match': etag } });
  /** The 200's ETag, then proof that it is current: two revalidations in a row are 304 with it. */
  const current = async (url: string): Promise<string> => {
    const first = await app.request(url);
    expect({ url, status: first.statusCode }).toEqual({ url, status: 200 });
    const etag = String(first.headers.etag);
    for (let i = 0; i < 2; i++) {
      const again = await inm(url, etag);
      expect({ url, status: again.statusCode, etag: again.headers.etag, body: again.body }).toEqual({
        url,
        status: 304,
        etag,
        body: '',
      });
    }
    return etag;
  };
  /** After a change, the old ETag gets the new body (a 200 with another ETag, the ETag of a plain GET now). */
  const changed = async (url: string, old: string) => {
    const res = await inm(url, old);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    expect(res.headers.etag).not.toBe(old);
    expect((await app.request(url)).headers.etag).toBe(res.headers.etag);
    return res;
  };
  /** A visible text column of a table (the first of these it has). */
  const textColumn = async (table: string): Promise<string> => {
    const { rows } = await app.pg.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'content' AND table_name = $1
          AND column_name = ANY($2) ORDER BY array_position($2, column_name::text) LIMIT 1`,
      [table, ['title', 'name', 'display_name', 'body']],
    );
    return rows[0].column_name;
  };

  it.each(PUBLIC_LISTS.map((l) => [l.path, l] as const))(
    '%s: unchanged → 304; an item edited → the list and its detail answer the old ETag with the new body',
    async (_, list) => {
      const url = `/public/v1/${list.path}?limit=5`;
      const body = (await app.ok(url)) as { data: Record<string, unknown>[] };
      const item = body.data[0];
      const detail = list.detail ? `/public/v1/${list.detail(item)}` : null;
      const listTag = await current(url);
      const detailTag = detail ? await current(detail) : null;
      const [table, alias] = list.table.split(' ');
      const column = await textColumn(table.split('.')[1]);
      const { rowCount } = await app.pg.query(
        `UPDATE ${table} ${alias} SET ${column} = ${column} || ' (edited)' WHERE ${list.key} = $1`,
        [keyOf(list, item)],
      );
      expect(rowCount).toBe(1);
      const res = await changed(url, listTag);
      expect(res.body).toContain('(edited)');
      if (detail) expect((await changed(detail, detailTag!)).body).toContain('(edited)');
    },
  );

  it('a new item changes the list; a deleted child row, a moderated segment, a profile gone private and an employer renamed change what shows them', async () => {
    const pg = app.pg;
    // a new campaign: the list and its total
    const url = '/public/v1/campaigns?limit=1';
    const before = (await app.ok(url)) as { total: number };
    const tag = await current(url);
    await pg.query(
      `INSERT INTO content.campaign (id, slug, title, description, category, status, goal_amount, currency, organizer_id, created_at)
       SELECT 'cmp_cond_new', 'cond-new', 'Newest', d.description, d.category, 'active', d.goal_amount, d.currency, d.organizer_id,
              now() + interval '1 day'
         FROM content.campaign d LIMIT 1`,
    );
    const after = (await changed(url, tag)).json() as { total: number; data: { slug: string }[] };
    // (the total may lag a write by the count cache's 30 s, as documented; never below what was counted before)
    expect(after.data[0].slug).toBe('cond-new');
    expect(after.total).toBeGreaterThanOrEqual(before.total);

    // a campaign update deleted: the campaign's detail
    const { rows: upd } = await pg.query<{ slug: string; id: string }>(
      `SELECT c.slug, u.id FROM content.campaign_update u JOIN content.campaign c ON c.id = u.campaign_id
        WHERE c.status IN ('active','won') LIMIT 1`,
    );
    const campaign = `/public/v1/campaigns/${upd[0].slug}`;
    const campaignTag = await current(campaign);
    await pg.query(`DELETE FROM content.campaign_update WHERE id = $1`, [upd[0].id]);
    const updates = (await changed(campaign, campaignTag)).json().updates as { id: string }[];
    expect(updates.map((u) => u.id)).not.toContain(upd[0].id);

    // a transcript segment flagged by moderation: the transcript withholds it
    const { rows: seg } = await pg.query<{ slug: string; id: string; text: string }>(
      `SELECT d.slug, s.id, s.text FROM content.durbar_transcript_segment s JOIN content.durbar d ON d.id = s.durbar_id
         JOIN content.durbar_transcript t ON t.durbar_id = d.id
        WHERE NOT s.flagged AND t.status = 'completed' AND d.is_recorded AND d.status <> 'cancelled' LIMIT 1`,
    );
    const transcript = `/public/v1/durbars/${seg[0].slug}/transcript`;
    const transcriptTag = await current(transcript);
    const segments = async (res: { json(): unknown }) =>
      ((res.json() as { segments: unknown[] }).segments ?? []).length;
    const count = await segments(await app.request(transcript));
    await pg.query(`UPDATE content.durbar_transcript_segment SET flagged = true WHERE id = $1`, [seg[0].id]);
    expect(await segments(await changed(transcript, transcriptTag))).toBe(count - 1);

    // a profile gone private: the old ETag gets 404
    const { rows: acc } = await pg.query<{ username: string }>(
      `SELECT username FROM content.account WHERE public_profile LIMIT 1`,
    );
    const profile = `/public/v1/profiles/${acc[0].username}`;
    const profileTag = await current(profile);
    await pg.query(`UPDATE content.account SET public_profile = false WHERE username = $1`, [
      acc[0].username,
    ]);
    expect((await inm(profile, profileTag)).statusCode).toBe(404);

    // an employer renamed: its open jobs' details
    const { rows: job } = await pg.query<{ slug: string; employer_id: string }>(
      `SELECT slug, employer_id FROM content.job WHERE status = 'open' LIMIT 1`,
    );
    const jobUrl = `/public/v1/jobs/${job[0].slug}`;
    const jobTag = await current(jobUrl);
    await pg.query(`UPDATE content.employer SET name = 'Renamed employer' WHERE id = $1`, [
      job[0].employer_id,
    ]);
    expect((await changed(jobUrl, jobTag)).json().employer.name).toBe('Renamed employer');
  });

  it('the 304 comes from the versions, not the query: a change made with the trigger off (as no writer can) goes unseen until a counted change', async () => {
    const url = '/public/v1/groups?limit=3';
    const tag = await current(url);
    const { rows } = await app.pg.query<{ slug: string }>(
      `SELECT slug FROM content.community_group WHERE visibility = 'public' ORDER BY member_count DESC, slug LIMIT 1`,
    );
    await app.pg.query(`ALTER TABLE content.community_group DISABLE TRIGGER community_group_version`);
    try {
      await app.pg.query(`UPDATE content.community_group SET name = 'Uncounted' WHERE slug = $1`, [
        rows[0].slug,
      ]);
    } finally {
      await app.pg.query(`ALTER TABLE content.community_group ENABLE TRIGGER community_group_version`);
    }
    expect((await inm(url, tag)).statusCode).toBe(304);
    // HEAD and unconditional GETs run the query: they see the row as it is
    expect((await app.request(url)).body).toContain('Uncounted');
    const head = await app.request(url, { method: 'HEAD', headers: { 'if-none-match': tag } });
    expect(head.statusCode).toBe(200);
    await app.pg.query(`UPDATE content.community_group SET name = name WHERE slug = $1`, [rows[0].slug]);
    expect((await changed(url, tag)).body).toContain('Uncounted');
  });

  it('a route whose body depends on the clock reads no versions: it compares the ETag with the body it would send', async () => {
    const pipeline = app.t.app.get(PublicPipeline);
    // stats (cached a minute), a petition's 7-day momentum, an event's ticket availability; the lists are versioned
    for (const route of ['/public/v1/stats', '/public/v1/petitions/:slug', '/public/v1/events/:slug'])
      expect({ route, tables: pipeline.tablesFor(route) }).toEqual({ route, tables: null });
    for (const route of ['/public/v1/petitions', '/public/v1/events'])
      expect({ route, versioned: pipeline.tablesFor(route) !== null }).toEqual({ route, versioned: true });
    const url = '/public/v1/stats';
    const etag = await current(url);
    expect((await inm(url, etag)).statusCode).toBe(304);
    expect((await inm(url, '"other"')).headers.etag).toBe(etag);
  });

  it('every content table but the API keys has a version and a trigger that counts every kind of change', async () => {
    const { rows } = await app.pg.query<{ table: string; version: string | null; events: string[] | null }>(
      `SELECT t.tablename AS table, v.version::text AS version,
              (SELECT array_agg(DISTINCT e.event_manipulation ORDER BY e.event_manipulation)::text[] FROM information_schema.triggers e
                WHERE e.event_object_schema = 'content' AND e.event_object_table = t.tablename
                  AND e.trigger_name = t.tablename || '_version' AND e.action_orientation = 'STATEMENT') AS events
         FROM pg_tables t LEFT JOIN content.table_version v ON v.table_name = t.tablename
        WHERE t.schemaname = 'content' AND t.tablename NOT IN ('api_key', 'api_key_use_day', 'table_version')
        ORDER BY 1`,
    );
    expect(rows.length).toBeGreaterThan(30);
    for (const r of rows)
      expect(r).toEqual({
        table: r.table,
        version: expect.any(String),
        events: ['DELETE', 'INSERT', 'UPDATE'],
      });
    const { rows: truncates } = await app.pg.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE '%\\_version' AND (tgtype & 32) <> 0`,
    );
    expect(truncates[0].n).toBe(rows.length);
  });

  it("each public controller declares every table its repository's SQL reads", () => {
    const root = join(__dirname, '../../src/content');
    for (const dir of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const files = readdirSync(join(root, dir.name), { withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => readFileSync(join(root, dir.name, f.name), 'utf8'));
      const controllers = files.filter((s) => s.includes('@PublicController('));
      if (dir.name === 'platform' || dir.name === 'openapi') continue;
      const repos = files.filter((s) => s.includes('@Injectable()'));
      const named = new Set(repos.flatMap((s) => [...s.matchAll(/content\.([a-z_]+)/g)].map((m) => m[1])));
      for (const c of controllers) {
        if (c.includes('@ChangesWithClock()\n@PublicController')) continue;
        const declared = /@ChangesWith\(([^)]*)\)/
          .exec(c)?.[1]
          .match(/'([a-z_]+)'/g)
          ?.map((s) => s.slice(1, -1));
        expect({ dir: dir.name, missing: [...named].filter((t) => !declared?.includes(t)) }).toEqual({
          dir: dir.name,
          missing: [],
        });
      }
    }
  });
});
