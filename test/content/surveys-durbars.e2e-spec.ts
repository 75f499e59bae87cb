import type { Client } from 'pg';
import { bootContentApp, ContentTestApp } from '../support/content-fixtures';

/** /public/v1/surveys and /public/v1/durbars: visibility, the disclosure rule, orders, transcripts, privacy. */
describe('public content API: surveys and durbars', () => {
  let pg: Client;
  let app: ContentTestApp;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ pg } = app);
  });
  afterAll(() => app.close());

  const get = (url: string) => app.get(url);
  const ok = (url: string) => app.ok(url);
  const notFound = (url: string) => app.notFound(url);
  const keysOf = (o: object) => Object.keys(o).sort();
  const SURVEY_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'purpose',
    'is_anonymous',
    'guests_allowed',
    'result_visibility',
    'status',
    'opens_at',
    'closes_at',
    'category_slug',
    'published_at',
    'created_at',
    'results_revealed',
    'response_count',
    'url',
  ].sort();
  const DURBAR_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'status',
    'scheduled_for',
    'started_at',
    'ended_at',
    'is_recorded',
    'language',
    'peak_listener_count',
    'total_listeners',
    'host',
    'url',
    'created_at',
  ].sort();

  describe('surveys', () => {
    it('lists only public standalone open or closed surveys, newest first', async () => {
      const { rows } = await pg.query(
        `SELECT slug FROM content.survey WHERE status IN ('open','closed') AND visibility = 'public' AND attached_to_type IS NULL
          ORDER BY published_at DESC, id DESC`,
      );
      const body = await ok('/public/v1/surveys?limit=50');
      expect(body.data.map((s: { slug: string }) => s.slug)).toEqual(rows.map((r) => r.slug));
      for (const s of body.data) expect(keysOf(s)).toEqual(SURVEY_KEYS);
      const closed = await ok('/public/v1/surveys?status=closed&limit=50');
      expect(closed.data.every((s: { status: string }) => s.status === 'closed')).toBe(true);
      for (const hidden of (
        await pg.query(
          `SELECT slug FROM content.survey WHERE status = 'draft' OR visibility = 'unlisted' OR attached_to_type IS NOT NULL`,
        )
      ).rows)
        await notFound(`/public/v1/surveys/${hidden.slug}`);
      expect((await get('/public/v1/surveys?status=draft')).statusCode).toBe(400);
    });

    it('applies the disclosure rule exactly: public_live always, after_close once closed, after_respond never', async () => {
      const body = await ok('/public/v1/surveys?limit=50');
      const seen = new Set<string>();
      for (const s of body.data) {
        const revealed =
          s.result_visibility === 'public_live' ||
          (s.result_visibility === 'after_close' && s.status === 'closed');
        seen.add(`${s.result_visibility}/${s.status}/${revealed}`);
        expect({ slug: s.slug, revealed: s.results_revealed }).toEqual({ slug: s.slug, revealed });
        const detail = await ok(`/public/v1/surveys/${s.slug}`);
        const counts = detail.questions.flatMap((q: { options: { response_count: number | null }[] }) =>
          q.options.map((o) => o.response_count),
        );
        if (revealed) {
          const real = (
            await pg.query(`SELECT count(*)::int AS n FROM content.survey_response WHERE survey_id = $1`, [
              s.id,
            ])
          ).rows[0].n;
          expect(detail.response_count).toBe(real);
          expect(counts.every((c: number | null) => typeof c === 'number')).toBe(true);
        } else {
          expect(detail.response_count).toBeNull();
          expect(counts.every((c: number | null) => c === null)).toBe(true);
        }
      }
      // every mode in every public state was seen
      for (const combo of [
        'public_live/open/true',
        'public_live/closed/true',
        'after_close/open/false',
        'after_close/closed/true',
        'after_respond/open/false',
        'after_respond/closed/false',
      ])
        expect(seen).toContain(combo);
    });

    it('questions carry options without matrix rows and columns, and no individual responses', async () => {
      const slug = (await ok('/public/v1/surveys')).data[0].slug;
      const s = await ok(`/public/v1/surveys/${slug}`);
      expect(keysOf(s)).toEqual([...SURVEY_KEYS, 'questions'].sort());
      expect(s.questions.map((q: { question_key: string }) => q.question_key)).toEqual([
        'q1',
        'q2',
        'q3',
        'q4',
      ]);
      expect(keysOf(s.questions[0])).toEqual([
        'help_text',
        'input_kind',
        'label',
        'options',
        'question_key',
        'required',
      ]);
      expect(s.questions[2]).toMatchObject({ input_kind: 'matrix', options: [] });
      expect(s.questions[0].options.map((o: { option_key: string }) => o.option_key)).toEqual([
        'o1',
        'o2',
        'o3',
      ]);
      expect(JSON.stringify(s)).not.toMatch(/Matrix (row|column)/);
    });
  });

  describe('durbars', () => {
    it('lists public rooms live first, then soonest scheduled, then most recent; no cancelled or unlisted', async () => {
      const body = await ok('/public/v1/durbars?limit=50');
      for (const d of body.data) expect(keysOf(d)).toEqual(DURBAR_KEYS);
      const statuses = body.data.map((d: { status: string }) => d.status);
      const rank = { live: 0, scheduled: 1, ended: 2 } as Record<string, number>;
      expect(statuses.map((s: string) => rank[s])).toEqual([...statuses.map((s: string) => rank[s])].sort());
      const scheduled = body.data
        .filter((d: { status: string }) => d.status === 'scheduled')
        .map((d: { scheduled_for: string }) => d.scheduled_for);
      expect(scheduled).toEqual([...scheduled].sort());
      const ended = body.data
        .filter((d: { status: string }) => d.status === 'ended')
        .map((d: { ended_at: string }) => d.ended_at);
      expect(ended).toEqual([...ended].sort().reverse());
      const { rows } = await pg.query(
        `SELECT count(*)::int AS n FROM content.durbar WHERE status <> 'cancelled' AND visibility = 'public'`,
      );
      expect(body.total).toBe(rows[0].n);
      for (const d of body.data) {
        if (d.status === 'ended') expect(typeof d.total_listeners).toBe('number');
        else expect([d.peak_listener_count, d.total_listeners]).toEqual([null, null]);
      }
    });

    it('filters by status, language, is_recorded and title words; bad values are 400', async () => {
      expect(
        (await ok('/public/v1/durbars?status=live')).data.every(
          (d: { status: string }) => d.status === 'live',
        ),
      ).toBe(true);
      expect(
        (await ok('/public/v1/durbars?language=fr')).data.every(
          (d: { language: string }) => d.language === 'fr',
        ),
      ).toBe(true);
      expect(
        (await ok('/public/v1/durbars?is_recorded=true')).data.every(
          (d: { is_recorded: boolean }) => d.is_recorded,
        ),
      ).toBe(true);
      const word = (await ok('/public/v1/durbars')).data[0].title.split(' ').pop();
      const found = await ok(`/public/v1/durbars?q=${encodeURIComponent(word)}&limit=50`);
      expect(found.data.length).toBeGreaterThan(0);
      expect(
        found.data.every((d: { title: string }) => d.title.toLowerCase().includes(word.toLowerCase())),
      ).toBe(true);
      for (const url of [
        '/public/v1/durbars?status=cancelled',
        '/public/v1/durbars?is_recorded=maybe',
        '/public/v1/durbars?language=English',
      ])
        expect((await get(url)).statusCode).toBe(400);
    });

    it('unlisted rooms are reachable by slug; cancelled ones are not; replay only once uploaded', async () => {
      const unlisted = (
        await pg.query(
          `SELECT slug FROM content.durbar WHERE visibility = 'unlisted' AND status <> 'cancelled' LIMIT 1`,
        )
      ).rows[0];
      const d = await ok(`/public/v1/durbars/${unlisted.slug}`);
      expect(keysOf(d)).toEqual([...DURBAR_KEYS, 'has_transcript', 'replay', 'speakers'].sort());
      const cancelled = (await pg.query(`SELECT slug FROM content.durbar WHERE status = 'cancelled' LIMIT 1`))
        .rows[0];
      await notFound(`/public/v1/durbars/${cancelled.slug}`);
      for (const r of (
        await pg.query(
          `SELECT d.slug, r.upload_status FROM content.durbar_replay r JOIN content.durbar d ON d.id = r.durbar_id`,
        )
      ).rows) {
        const detail = await ok(`/public/v1/durbars/${r.slug}`);
        if (r.upload_status === 'ready')
          expect(keysOf(detail.replay)).toEqual(['duration_seconds', 'mime_type', 'url']);
        else expect(detail.replay).toBeNull();
      }
      expect(keysOf(d.speakers[0])).toEqual([
        'avatar_url',
        'handle',
        'kind',
        'name',
        'role',
        'speaking_minutes',
        'verified',
      ]);
    });

    it('the transcript exists only when completed, withholds flagged segments and names no speaker', async () => {
      const rows = (
        await pg.query(
          `SELECT d.slug, t.status, d.id FROM content.durbar d LEFT JOIN content.durbar_transcript t ON t.durbar_id = d.id
            WHERE d.status <> 'cancelled'`,
        )
      ).rows;
      expect(rows.some((r) => r.status === 'completed')).toBe(true);
      expect(rows.some((r) => r.status === 'processing')).toBe(true);
      for (const r of rows) {
        if (r.status !== 'completed') {
          await notFound(`/public/v1/durbars/${r.slug}/transcript`);
          expect((await ok(`/public/v1/durbars/${r.slug}`)).has_transcript).toBe(false);
          continue;
        }
        expect((await ok(`/public/v1/durbars/${r.slug}`)).has_transcript).toBe(true);
        const tr = await ok(`/public/v1/durbars/${r.slug}/transcript`);
        expect(keysOf(tr)).toEqual([
          'completed_at',
          'disclaimer',
          'duration_seconds',
          'durbar',
          'language',
          'mean_confidence',
          'segment_count',
          'segments',
        ]);
        const visible = (
          await pg.query(
            `SELECT count(*)::int AS n FROM content.durbar_transcript_segment WHERE durbar_id = $1 AND NOT flagged`,
            [r.id],
          )
        ).rows[0].n;
        expect(tr.segment_count).toBe(visible);
        expect(tr.segments).toHaveLength(visible);
        for (const s of tr.segments)
          expect(keysOf(s)).toEqual(['confidence', 'end_ms', 'lang', 'start_ms', 'text']);
        expect(tr.disclaimer).toMatch(/machine transcription/i);
      }
    });
  });

  it('privacy: no survey response, listener, raised hand, playlist, flagged text or speaker attribution appears', async () => {
    for (const list of ['surveys', 'durbars']) {
      const first = await ok(`/public/v1/${list}?limit=50`);
      for (const item of first.data) await ok(`/public/v1/${list}/${item.slug}`);
    }
    const all = app.bodies.join('\n');
    const privateValues = [
      ...(await pg.query(`SELECT respondent_email, free_text FROM content.survey_response`)).rows.flatMap(
        (r) => [r.respondent_email, r.free_text],
      ),
      ...(await pg.query(`SELECT handle FROM content.durbar_listener`)).rows.map((r) => r.handle),
      ...(await pg.query(`SELECT stream_playlist_url FROM content.durbar`)).rows.map(
        (r) => r.stream_playlist_url,
      ),
      ...(await pg.query(`SELECT text FROM content.durbar_transcript_segment WHERE flagged`)).rows.map(
        (r) => r.text,
      ),
      ...(await pg.query(`SELECT DISTINCT speaker_handle FROM content.durbar_transcript_segment`)).rows.map(
        (r) => r.speaker_handle,
      ),
    ];
    expect(privateValues.length).toBeGreaterThan(200);
    expect(privateValues.filter((v) => all.includes(v))).toEqual([]);
    for (const pattern of [
      '@private.example',
      'listener_private',
      'speaker_private',
      'stream.private',
      'hand_raised',
      'Private survey answer',
    ])
      expect(all).not.toContain(pattern);
  });
});
