import { Client } from 'pg';
import type { Contract } from '../support/openapi-contract';
import { bootContentApp, ContentTestApp } from '../support/content-fixtures';

/** /public/v1/events and /public/v1/jobs: fields, filters, full text, orders, visibility, privacy. */
describe('public content API: events and jobs', () => {
  let pg: Client;
  let contract: Contract;

  let app: ContentTestApp;
  beforeAll(async () => {
    app = await bootContentApp();
    ({ pg, contract } = app);
  });
  afterAll(() => app.close());

  const get = (url: string) => app.get(url);
  const ok = (url: string) => app.ok(url);
  const bad = async (url: string, status: number) => {
    const res = await get(url);
    expect({ url, status: res.statusCode }).toEqual({ url, status });
    contract.expectValid(res, 'GET', url);
    return res.json().error as { code: string; message: string };
  };
  const slugs = (b: { data: { slug: string }[] }) => b.data.map((x) => x.slug);
  const keysOf = (o: object) => Object.keys(o).sort();

  const EVENT_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'event_type',
    'category',
    'start_date',
    'end_date',
    'timezone',
    'location',
    'is_online',
    'image_url',
    'is_paid',
    'currency',
    'tags',
    'is_featured',
    'created_at',
  ].sort();
  const JOB_KEYS = [
    'id',
    'slug',
    'title',
    'description',
    'employment_type',
    'workplace_type',
    'seniority',
    'location',
    'salary_min_pesewas',
    'salary_max_pesewas',
    'salary_currency',
    'salary_period',
    'salary_hidden',
    'skills',
    'application_deadline',
    'is_featured',
    'published_at',
    'created_at',
  ].sort();

  describe('events', () => {
    it('lists published events only, earliest start first, with the exact field set', async () => {
      const { rows } = await pg.query(
        `SELECT slug FROM content.event WHERE status = 'published' ORDER BY start_date, id`,
      );
      const body = await ok('/public/v1/events?limit=50');
      expect(body.total).toBe(rows.length);
      expect(slugs(body)).toEqual(rows.map((r) => r.slug));
      for (const e of body.data) expect(keysOf(e)).toEqual(EVENT_KEYS);
    });

    it('filters: q (full text), event_type, category, location substring, is_paid, is_online, date range', async () => {
      const title = (await pg.query(`SELECT title FROM content.event WHERE status = 'published' LIMIT 1`))
        .rows[0].title;
      const word = title.split(' ')[0];
      const byQ = await ok(`/public/v1/events?q=${encodeURIComponent(word.toLowerCase())}&limit=50`);
      expect(byQ.data.length).toBeGreaterThan(0);
      const { rows: expectedQ } = await pg.query(
        `SELECT slug FROM content.event WHERE status = 'published' AND search @@ websearch_to_tsquery('simple', $1) ORDER BY start_date, id`,
        [word.toLowerCase()],
      );
      expect(slugs(byQ)).toEqual(expectedQ.map((r) => r.slug));
      const paid = await ok('/public/v1/events?is_paid=true&limit=50');
      const free = await ok('/public/v1/events?is_paid=false&limit=50');
      expect(paid.data.every((e: { is_paid: boolean }) => e.is_paid)).toBe(true);
      expect(free.data.every((e: { is_paid: boolean }) => !e.is_paid)).toBe(true);
      expect(paid.total + free.total).toBe((await ok('/public/v1/events')).total);
      const online = await ok('/public/v1/events?is_online=true');
      expect(online.data.every((e: { is_online: boolean }) => e.is_online)).toBe(true);
      const loc = await ok('/public/v1/events?location=CONFERENCE%20centre&limit=50');
      expect(loc.data.length).toBeGreaterThan(0);
      expect(loc.data.every((e: { location: string }) => /conference centre/i.test(e.location))).toBe(true);
      const type = (await ok('/public/v1/events')).data[0].event_type;
      expect(
        (await ok(`/public/v1/events?event_type=${type}`)).data.every(
          (e: { event_type: string }) => e.event_type === type,
        ),
      ).toBe(true);
      const day = new Date().toISOString().slice(0, 10);
      const upcoming = await ok(`/public/v1/events?date_from=${day}&limit=50`);
      expect(upcoming.data.every((e: { start_date: string }) => e.start_date >= `${day}T00:00:00.000Z`)).toBe(
        true,
      );
      const one = upcoming.data[0].start_date.slice(0, 10);
      const sameDay = await ok(`/public/v1/events?date_from=${one}&date_to=${one}`);
      expect(sameDay.data.length).toBeGreaterThan(0);
      expect(sameDay.data.every((e: { start_date: string }) => e.start_date.startsWith(one))).toBe(true);
    });

    it('refuses bad parameters with 400 naming them', async () => {
      for (const [url, param] of [
        ['/public/v1/events?is_paid=yes', 'query.is_paid'],
        ['/public/v1/events?date_from=2026-13-01', 'query.date_from'],
        ['/public/v1/events?date_to=2026-02-30', 'query.date_to'],
        ['/public/v1/events?date_from=2026-05-02&date_to=2026-05-01', 'query.date_to'],
        ['/public/v1/events?event_type=rave', 'query.event_type'],
        ['/public/v1/events?limit=100', 'query.limit'],
      ]) {
        const e = await bad(url, 400);
        expect({ url, code: e.code, names: e.message.includes(param) }).toEqual({
          url,
          code: 'VALIDATION_FAILED',
          names: true,
        });
      }
    });

    it('a detail has blocks with public keys only and tiers with price_pesewas = price_minor; drafts and cancelled are 404', async () => {
      const paid = (
        await pg.query(
          `SELECT e.slug FROM content.event e WHERE e.status = 'published' AND e.is_paid
              AND EXISTS (SELECT 1 FROM content.event_ticket_tier t WHERE t.event_id = e.id AND t.sold >= t.inventory) LIMIT 1`,
        )
      ).rows[0];
      const e = await ok(`/public/v1/events/${paid.slug}`);
      expect(keysOf(e)).toEqual(
        [...EVENT_KEYS, 'agenda', 'gallery', 'speakers', 'sponsors', 'ticket_tiers'].sort(),
      );
      expect(e.ticket_tiers.length).toBeGreaterThan(0);
      for (const tier of e.ticket_tiers) {
        expect(keysOf(tier)).toEqual([
          'currency',
          'description',
          'id',
          'is_available',
          'name',
          'price_minor',
          'price_pesewas',
        ]);
        expect(tier.price_minor).toBe(tier.price_pesewas);
      }
      expect(e.ticket_tiers.some((x: { is_available: boolean }) => !x.is_available)).toBe(true);
      expect(keysOf(e.agenda[0])).toEqual(['description', 'starts_at', 'title']);
      expect(keysOf(e.speakers[0])).toEqual(['name', 'photo_url', 'title']);
      expect(keysOf(e.sponsors[0])).toEqual(['logo_url', 'name', 'url']);
      expect(keysOf(e.gallery[0])).toEqual(['caption', 'image_url']);
      const free = (
        await pg.query(`SELECT slug FROM content.event WHERE status = 'published' AND NOT is_paid LIMIT 1`)
      ).rows[0];
      expect((await ok(`/public/v1/events/${free.slug}`)).ticket_tiers).toEqual([]);
      for (const status of ['draft', 'cancelled']) {
        const hidden = (await pg.query(`SELECT slug FROM content.event WHERE status = $1 LIMIT 1`, [status]))
          .rows[0];
        expect((await bad(`/public/v1/events/${hidden.slug}`, 404)).code).toBe('NOT_FOUND');
      }
    });
  });

  describe('jobs', () => {
    it('lists open jobs: featured first, then newest; hidden salaries are null', async () => {
      const { rows } = await pg.query(
        `SELECT slug FROM content.job WHERE status = 'open' ORDER BY is_featured DESC, published_at DESC, id DESC`,
      );
      const body = await ok('/public/v1/jobs?limit=50');
      expect(slugs(body)).toEqual(rows.map((r) => r.slug));
      for (const j of body.data) {
        expect(keysOf(j)).toEqual(JOB_KEYS);
        if (j.salary_hidden) expect([j.salary_min_pesewas, j.salary_max_pesewas]).toEqual([null, null]);
        else expect(typeof j.salary_min_pesewas).toBe('number');
      }
      expect(body.data.some((j: { salary_hidden: boolean }) => j.salary_hidden)).toBe(true);
      const featured = body.data.map((j: { is_featured: boolean }) => j.is_featured);
      expect(featured).toEqual([...featured].sort((a, b) => Number(b) - Number(a)));
    });

    it('filters by q, employment_type, workplace_type, seniority, location and category; bad values are 400', async () => {
      const remote = await ok('/public/v1/jobs?workplace_type=remote&limit=50');
      expect(remote.data.every((j: { workplace_type: string }) => j.workplace_type === 'remote')).toBe(true);
      const skill = (await ok('/public/v1/jobs')).data[0].skills[0];
      const byQ = await ok(`/public/v1/jobs?q=${skill}&limit=50`);
      expect(byQ.data.length).toBeGreaterThan(0);
      expect(
        byQ.data.every(
          (j: { skills: string[]; title: string; description: string }) =>
            j.skills.includes(skill) || `${j.title} ${j.description}`.toLowerCase().includes(skill),
        ),
      ).toBe(true);
      const first = (await ok('/public/v1/jobs')).data[0];
      const combo = await ok(
        `/public/v1/jobs?employment_type=${first.employment_type}&seniority=${first.seniority}&location=${encodeURIComponent(first.location.slice(1, 4))}`,
      );
      expect(slugs(combo)).toContain(first.slug);
      for (const [url, param] of [
        ['/public/v1/jobs?workplace_type=moon', 'query.workplace_type'],
        ['/public/v1/jobs?employment_type=forever', 'query.employment_type'],
        ['/public/v1/jobs?seniority=god', 'query.seniority'],
      ]) {
        const e = await bad(url, 400);
        expect(e.message).toContain(param);
      }
    });

    it('a detail has the employer (public fields only); closed and draft jobs are 404', async () => {
      const slug = (await pg.query(`SELECT slug FROM content.job WHERE status = 'open' LIMIT 1`)).rows[0]
        .slug;
      const j = await ok(`/public/v1/jobs/${slug}`);
      expect(keysOf(j)).toEqual(
        [...JOB_KEYS, 'benefits', 'employer', 'requirements', 'responsibilities'].sort(),
      );
      expect(keysOf(j.employer)).toEqual([
        'id',
        'industry',
        'is_verified',
        'location',
        'logo_url',
        'name',
        'slug',
      ]);
      for (const status of ['closed', 'draft']) {
        const hidden = (await pg.query(`SELECT slug FROM content.job WHERE status = $1 LIMIT 1`, [status]))
          .rows[0];
        expect((await bad(`/public/v1/jobs/${hidden.slug}`, 404)).code).toBe('NOT_FOUND');
      }
    });
  });

  it('privacy: no promo code, RSVP, joining link, speaker contact, applicant or employer contact appears', async () => {
    for (const list of ['events', 'jobs']) {
      const first = await ok(`/public/v1/${list}?limit=50`);
      for (const item of first.data) await ok(`/public/v1/${list}/${item.slug}`);
    }
    const all = app.bodies.join('\n');
    const privateValues = [
      ...(await pg.query(`SELECT code FROM content.event_promo_code`)).rows.map((r) => r.code),
      ...(await pg.query(`SELECT name, email FROM content.event_rsvp`)).rows.flatMap((r) => [
        r.name,
        r.email,
      ]),
      ...(
        await pg.query(`SELECT online_join_url FROM content.event WHERE online_join_url IS NOT NULL`)
      ).rows.map((r) => r.online_join_url),
      ...(await pg.query(`SELECT contact_email, billing_notes FROM content.employer`)).rows.flatMap((r) => [
        r.contact_email,
        r.billing_notes,
      ]),
      ...(
        await pg.query(
          `SELECT applicant_name, applicant_email, applicant_phone, cover_letter FROM content.job_application`,
        )
      ).rows.flatMap((r) => [r.applicant_name, r.applicant_email, r.applicant_phone, r.cover_letter]),
    ];
    expect(privateValues.length).toBeGreaterThan(300);
    expect(privateValues.filter((v) => all.includes(v))).toEqual([]);
    for (const pattern of [
      '@private.example',
      'Private answer',
      'internal_note',
      'contract_value',
      'SECRET-PROMO',
      '"inventory"',
      '"sold"',
    ])
      expect(all).not.toContain(pattern);
  });
});
