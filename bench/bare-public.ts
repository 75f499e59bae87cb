/**
 * The bare handler of `npm run bench -- public`, in its own process: `node:http` and a `pg` pool with named prepared
 * statements, no framework, no TypeORM. For the sampled public URLs it runs the SQL the app's content repositories
 * run (as on main when this was written; copied here, not imported, so a change on either side shows) and maps the
 * rows with the app's own response mappers (pure functions of the DTO modules), so that its bodies are byte-identical
 * to the app's — the bench checks that before measuring and stops when they differ. A list's total is counted at most
 * once per 30 s per query and filters and corrected by what its page proves, as the app's PublicQuery does. It sends
 * `Content-Type` and `Content-Length` only: no key, rate limit, request id, CORS, ETag or request log.
 *
 * Routes (GET, same paths as the app): /public/v1/campaigns[?country&limit&page], /public/v1/campaigns/:slug,
 * /public/v1/events[?q&limit&page], /public/v1/events/:slug, /public/v1/jobs[?q&limit&page], /public/v1/jobs/:slug,
 * /public/v1/durbars/:slug, /public/v1/durbars/:slug/transcript.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { barePool, serveBare } from './bare-server';
import { toCampaignDetailResponse, toCampaignResponse } from '../src/content/campaigns/dto/campaign.response';
import { toEventDetailResponse, toEventResponse } from '../src/content/events/dto/event.response';
import { toJobDetailResponse, toJobResponse } from '../src/content/jobs/dto/job.response';
import {
  toDurbarDetailResponse,
  toDurbarTranscriptResponse,
} from '../src/content/durbars/dto/durbar.response';

const pool = barePool('bench-bare');

const TOTAL_TTL_MS = 30_000;
const totals = new Map<string, { at: number; n: Promise<number> }>();

class NotFound extends Error {}

/** Rows of a named prepared statement. */
async function q<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
  return (await pool.query({ name, text, values })).rows as T[];
}

const CAMPAIGN = `c.id, c.slug, c.title, c.description, c.category, c.status, c.goal_amount::text, c.raised_amount::text,
  c.image_url, c.country, c.target_country, c.goal_reached_at, c.deadline, c.created_at`;
const EVENT = `e.id, e.slug, e.title, e.description, e.event_type, e.category, e.start_date, e.end_date, e.timezone,
  e.location, e.is_online, e.image_url, e.is_paid, e.currency, e.tags, e.is_featured, e.created_at`;
const JOB = `j.id, j.slug, j.title, j.description, j.employment_type, j.workplace_type, j.seniority, j.location,
  CASE WHEN j.salary_hidden THEN NULL ELSE j.salary_min_minor::text END AS salary_min,
  CASE WHEN j.salary_hidden THEN NULL ELSE j.salary_max_minor::text END AS salary_max,
  j.salary_currency, j.salary_period, j.salary_hidden, j.skills, j.application_deadline, j.is_featured, j.published_at, j.created_at`;
const DURBAR = `d.id, d.slug, d.title, d.description, d.status, d.scheduled_for, d.started_at, d.ended_at, d.is_recorded, d.language,
  CASE WHEN d.status = 'ended' THEN d.peak_listener_count END AS peak_listener_count,
  CASE WHEN d.status = 'ended' THEN d.total_listeners END AS total_listeners,
  d.host_handle, d.host_name, d.host_avatar_url, d.host_kind, d.host_verified, d.created_at`;

/** A list: its statements (page and count) for each combination of filters, by name. */
interface List {
  name: string;
  select: string;
  from: string;
  where: string;
  orderBy: string;
  /** Query parameter → SQL condition on `$n` (with the value as the app passes it). */
  filters: Record<string, { cond: (p: string) => string; value: (v: string) => unknown }>;
  map: (row: never) => unknown;
}

const LISTS: Record<string, List> = {
  campaigns: {
    name: 'campaigns',
    select: CAMPAIGN,
    from: 'content.campaign c',
    where: `c.status IN ('active', 'won')`,
    orderBy: 'c.created_at DESC, c.id DESC',
    filters: { country: { cond: (p) => `c.target_country = ${p}`, value: (v) => v.toUpperCase() } },
    map: toCampaignResponse,
  },
  events: {
    name: 'events',
    select: EVENT,
    from: 'content.event e',
    where: `e.status = 'published'`,
    orderBy: 'e.start_date, e.id',
    filters: {
      q: { cond: (p) => `e.search @@ websearch_to_tsquery('simple', ${p})`, value: (v) => v.trim() },
    },
    map: toEventResponse,
  },
  jobs: {
    name: 'jobs',
    select: JOB,
    from: 'content.job j',
    where: `j.status = 'open'`,
    orderBy: 'j.is_featured DESC, j.published_at DESC, j.id DESC',
    filters: {
      q: { cond: (p) => `j.search @@ websearch_to_tsquery('simple', ${p})`, value: (v) => v.trim() },
    },
    map: toJobResponse,
  },
};

async function list(l: List, params: URLSearchParams): Promise<unknown> {
  const where = [l.where];
  const values: unknown[] = [];
  const used: string[] = [];
  for (const [key, f] of Object.entries(l.filters)) {
    const v = params.get(key);
    if (v === null) continue;
    values.push(f.value(v));
    used.push(key);
    where.push(f.cond(`$${values.length}`));
  }
  const page = Number(params.get('page') ?? 1);
  const limit = Number(params.get('limit') ?? 20);
  const offset = (page - 1) * limit;
  const w = where.join(' AND ');
  const name = `${l.name}_${used.join('_')}`;
  const key = `${name}|${JSON.stringify(values)}`;
  const now = Date.now();
  let total = totals.get(key);
  if (!total || now - total.at >= TOTAL_TTL_MS) {
    total = {
      at: now,
      n: q<{ n: number }>(
        `${name}_count`,
        `SELECT count(*)::int AS n FROM ${l.from} WHERE ${w}`,
        values,
      ).then((r) => r[0].n),
    };
    totals.set(key, total);
  }
  const n = values.length;
  const [rows, count] = await Promise.all([
    q<never>(
      `${name}_page`,
      `SELECT ${l.select} FROM ${l.from} WHERE ${w} ORDER BY ${l.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...values, limit, offset],
    ),
    total.n,
  ]);
  let proven = count;
  if (!(rows.length === 0 && offset > 0)) {
    const seen = offset + rows.length;
    if (rows.length < limit) {
      total.n = Promise.resolve(seen);
      proven = seen;
    } else proven = Math.max(count, seen);
  }
  return { data: rows.map((r) => l.map(r)), page, limit, total: proven };
}

async function one<T>(name: string, text: string, slug: string): Promise<T> {
  const rows = await q<T>(name, text, [slug]);
  if (!rows[0]) throw new NotFound();
  return rows[0];
}

async function campaign(slug: string): Promise<unknown> {
  const row = await one<{ id: string }>(
    'campaign',
    `SELECT ${CAMPAIGN} FROM content.campaign c WHERE c.slug = $1 AND c.status IN ('active', 'won')`,
    slug,
  );
  const updates = await q<never>(
    'campaign_updates',
    `SELECT id, title, content_html, media_urls, created_at FROM content.campaign_update
      WHERE campaign_id = $1 ORDER BY created_at DESC, id DESC`,
    [row.id],
  );
  return toCampaignDetailResponse(row as never, updates);
}

async function event(slug: string): Promise<unknown> {
  const row = await one<{ id: string }>(
    'event',
    `SELECT ${EVENT} FROM content.event e WHERE e.slug = $1 AND e.status = 'published'`,
    slug,
  );
  const [tiers, blocks] = await Promise.all([
    q<never>(
      'event_tiers',
      `SELECT id, name, description, price_minor, currency,
              (sold < inventory AND (sales_end IS NULL OR sales_end > $2)) AS is_available
         FROM content.event_ticket_tier WHERE event_id = $1 ORDER BY position, id`,
      [row.id, new Date()],
    ),
    q<never>(
      'event_blocks',
      `SELECT kind, data FROM content.event_block WHERE event_id = $1 ORDER BY kind, position, id`,
      [row.id],
    ),
  ]);
  return toEventDetailResponse(row as never, tiers, blocks);
}

async function job(slug: string): Promise<unknown> {
  const row = await one<never>(
    'job',
    `SELECT ${JOB}, j.responsibilities, j.requirements, j.benefits,
            json_build_object('id', m.id, 'slug', m.slug, 'name', m.name, 'logo_url', m.logo_url, 'industry', m.industry,
                              'location', m.location, 'is_verified', m.is_verified) AS employer
       FROM content.job j JOIN content.employer m ON m.id = j.employer_id
      WHERE j.slug = $1 AND j.status = 'open'`,
    slug,
  );
  return toJobDetailResponse(row);
}

const durbarBySlug = (slug: string) =>
  one<{ id: string }>(
    'durbar',
    `SELECT ${DURBAR} FROM content.durbar d WHERE d.slug = $1 AND d.status IN ('scheduled', 'live', 'ended')`,
    slug,
  );

const transcriptOf = async (id: string) =>
  (
    await q<never>(
      'durbar_transcript',
      `SELECT t.language, t.duration_seconds, t.completed_at FROM content.durbar_transcript t JOIN content.durbar d ON d.id = t.durbar_id
        WHERE t.durbar_id = $1 AND t.status = 'completed' AND t.completed_at IS NOT NULL AND d.is_recorded`,
      [id],
    )
  )[0] ?? null;

async function durbar(slug: string): Promise<unknown> {
  const row = await durbarBySlug(slug);
  const [speakers, replay, transcript] = await Promise.all([
    q<never>(
      'durbar_speakers',
      `SELECT handle, name, avatar_url, kind, verified, role, speaking_minutes FROM content.durbar_speaker
        WHERE durbar_id = $1 ORDER BY position, handle`,
      [row.id],
    ),
    q<never>(
      'durbar_replay',
      `SELECT r.url, r.duration_seconds, r.mime_type FROM content.durbar_replay r JOIN content.durbar d ON d.id = r.durbar_id
        WHERE r.durbar_id = $1 AND r.upload_status = 'ready' AND d.status = 'ended' AND d.is_recorded`,
      [row.id],
    ).then((r) => r[0] ?? null),
    transcriptOf(row.id),
  ]);
  return toDurbarDetailResponse(row as never, speakers, replay, transcript !== null);
}

async function transcript(slug: string): Promise<unknown> {
  const row = await durbarBySlug(slug);
  const t = await transcriptOf(row.id);
  if (!t) throw new NotFound();
  const segments = await q<never>(
    'durbar_segments',
    `SELECT start_ms, end_ms, text, lang, confidence FROM content.durbar_transcript_segment
      WHERE durbar_id = $1 AND NOT flagged ORDER BY start_ms, id`,
    [row.id],
  );
  return toDurbarTranscriptResponse(row as never, t, segments);
}

const DETAILS: Record<string, (slug: string) => Promise<unknown>> = {
  campaigns: campaign,
  events: event,
  jobs: job,
  durbars: durbar,
};

function route(path: string, params: URLSearchParams): Promise<unknown> | null {
  const parts = path.split('/'); // ['', 'public', 'v1', resource, slug?, 'transcript'?]
  if (parts[1] !== 'public' || parts[2] !== 'v1') return null;
  const [resource, slug, sub] = [parts[3], parts[4], parts[5]];
  if (slug === undefined) return LISTS[resource] ? list(LISTS[resource], params) : null;
  const s = decodeURIComponent(slug);
  if (sub === undefined) return DETAILS[resource] ? DETAILS[resource](s) : null;
  return resource === 'durbars' && sub === 'transcript' && parts.length === 6 ? transcript(s) : null;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const at = url.indexOf('?');
  const send = (status: number, body: string) =>
    res
      .writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      })
      .end(body);
  const answer =
    req.method === 'GET'
      ? route(at === -1 ? url : url.slice(0, at), new URLSearchParams(at === -1 ? '' : url.slice(at + 1)))
      : null;
  if (!answer) return void send(404, '{"error":"not found"}');
  answer.then(
    (body) => send(200, JSON.stringify(body)),
    (e: unknown) =>
      e instanceof NotFound ? send(404, '{"error":"not found"}') : send(500, JSON.stringify(String(e))),
  );
}

serveBare(handle, pool);
