import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { Contract } from './openapi-contract';
import { contentSeeder } from '../../src/content/content.seeder';
import { PublicKeysService } from '../../src/content/platform/public-keys.service';

type Item = Record<string, unknown>;

/**
 * Every /public/v1 list: its path, how an item names its detail (null: no detail route), and the rows behind it
 * (`table`, `visible`: the public rule, `key`: the column the item's identifier comes from, `order`) for tests
 * that compare a response with the database.
 */
export interface PublicList {
  path: string;
  detail: ((item: Item) => string) | null;
  table: string;
  visible: string;
  key: string;
  /** The documented order, with its unique tie-breaker. */
  order: string;
}

export const PUBLIC_LISTS: PublicList[] = [
  {
    path: 'campaigns',
    detail: (i) => `campaigns/${i.slug}`,
    table: 'content.campaign c',
    visible: `c.status IN ('active','won')`,
    key: 'c.slug',
    order: 'c.created_at DESC, c.id DESC',
  },
  {
    path: 'petitions',
    detail: (i) => `petitions/${i.slug}`,
    table: 'content.petition p',
    visible: `p.status = 'active'`,
    key: 'p.slug',
    order: 'p.created_at DESC, p.id DESC',
  },
  {
    path: 'events',
    detail: (i) => `events/${i.slug}`,
    table: 'content.event e',
    visible: `e.status = 'published'`,
    key: 'e.slug',
    order: 'e.start_date, e.id',
  },
  {
    path: 'marketplace/services',
    detail: (i) => `marketplace/services/${i.id}`,
    table: 'content.listing l',
    visible: `l.status = 'active'`,
    key: 'l.id',
    order: 'l.is_featured DESC, l.created_at DESC, l.id DESC',
  },
  {
    path: 'blog',
    detail: (i) => `blog/${i.slug}`,
    table: 'content.blog_post b',
    visible: `b.status = 'published'`,
    key: 'b.slug',
    order: 'b.published_at DESC, b.id DESC',
  },
  {
    path: 'jobs',
    detail: (i) => `jobs/${i.slug}`,
    table: 'content.job j',
    visible: `j.status = 'open'`,
    key: 'j.slug',
    order: 'j.is_featured DESC, j.published_at DESC, j.id DESC',
  },
  {
    path: 'surveys',
    detail: (i) => `surveys/${i.slug}`,
    table: 'content.survey s',
    visible: `s.status IN ('open','closed') AND s.visibility = 'public' AND s.attached_to_type IS NULL`,
    key: 's.slug',
    order: 's.published_at DESC, s.id DESC',
  },
  {
    path: 'durbars',
    detail: (i) => `durbars/${i.slug}`,
    table: 'content.durbar d',
    visible: `d.status <> 'cancelled' AND d.visibility = 'public'`,
    key: 'd.slug',
    order: `CASE d.status WHEN 'live' THEN 0 WHEN 'scheduled' THEN 1 ELSE 2 END,
      CASE WHEN d.status = 'scheduled' THEN d.scheduled_for END, COALESCE(d.ended_at, d.started_at) DESC, d.id`,
  },
  {
    path: 'reviews/entities',
    detail: (i) => `reviews/entities/${i.slug}`,
    table: 'content.review_entity r',
    visible: `r.status = 'published'`,
    key: 'r.slug',
    order: 'r.review_count DESC, r.slug',
  },
  {
    path: 'safety/hazards',
    detail: (i) => `safety/hazards/${i.case_number}`,
    table: 'content.safety_hazard h',
    visible: `h.status IN ('verified','resolved')`,
    key: 'h.case_number',
    order: 'h.reported_at DESC, h.case_number DESC',
  },
  {
    path: 'actors',
    detail: (i) => `actors/${i.handle}`,
    table: 'content.actor a',
    visible: 'a.is_public',
    key: 'a.handle',
    order: 'a.handle',
  },
  {
    path: 'posts',
    detail: (i) => `posts/${i.id}`,
    table: 'content.post p JOIN content.actor a ON a.handle = p.author_handle',
    visible: `p.status = 'published' AND a.is_public AND (p.group_slug IS NULL OR p.group_slug IN
      (SELECT slug FROM content.community_group WHERE visibility = 'public'))`,
    key: 'p.id',
    order: 'p.created_at DESC, p.id DESC',
  },
  {
    path: 'groups',
    detail: (i) => `groups/${i.slug}`,
    table: 'content.community_group g',
    visible: `g.visibility = 'public'`,
    key: 'g.slug',
    order: 'g.member_count DESC, g.slug',
  },
];

/** Exact key sets (sorted) of the resources whose fields the spec leaves open ("not shown") and of nested objects. */
export const FIELDS = {
  actor: ['avatar_url', 'bio', 'country', 'created_at', 'display_name', 'handle', 'kind', 'verified'],
  group: ['avatar_url', 'category', 'created_at', 'description', 'member_count', 'name', 'slug'],
  post: ['attachments', 'author', 'body', 'comment_count', 'created_at', 'group_slug', 'id', 'like_count'],
  reviewEntity: [
    'category',
    'country',
    'created_at',
    'is_claimed',
    'is_verified',
    'kind',
    'location',
    'name',
    'rating',
    'review_count',
    'slug',
  ],
  hazard: [
    'case_number',
    'country',
    'description',
    'hazard_type',
    'location',
    'reported_at',
    'resolved_at',
    'severity',
    'status',
    'title',
  ],
  durbarHost: ['avatar_url', 'handle', 'kind', 'name', 'verified'],
  surveyOption: ['label', 'option_key', 'response_count'],
};

/** An object's keys, sorted (compare with FIELDS). */
export const keysOf = (o: object) => Object.keys(o).sort();

/** The identifier a list item is known by (the value of its list's `key` column). */
export const keyOf = (list: PublicList, item: Item) => String(item[list.key.split('.')[1]]);

export interface RequestOptions {
  /** The partner key by default; null sends no key (the keyless tier). */
  key?: string | null;
  /** Client address (each test that counts keyless requests uses its own). */
  ip?: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'HEAD' | 'OPTIONS';
}

export interface ContentTestApp {
  t: TestApp;
  /** A direct connection, to compare responses with the rows (and to find private values). */
  pg: Client;
  contract: Contract;
  /** A partner key (600 requests a minute), so tests are not limited to the keyless 30. */
  key: string;
  /** Every 200 body a request has seen, for privacy checks. */
  bodies: string[];
  /** Any request; every GET response (whatever its status) is validated against the served contract. */
  request(url: string, opts?: RequestOptions): ReturnType<TestApp['app']['inject']>;
  /** GET with the partner key, validated against the contract. */
  get(url: string): ReturnType<TestApp['app']['inject']>;
  /** GET that must answer 200 and match the served contract; returns the parsed body. */
  ok(url: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** GET that must answer 404 NOT_FOUND in the public envelope. */
  notFound(url: string): Promise<void>;
  /** GET that must answer 400 VALIDATION_FAILED whose message names `query.<param>`; returns the message. */
  invalid(url: string, param: string): Promise<string>;
  close(): Promise<void>;
}

/** bootContentApp once for the enclosing describe; the returned object is usable from beforeAll on. */
export function useContentApp(): ContentTestApp {
  const app = {} as ContentTestApp;
  beforeAll(async () => void Object.assign(app, await bootContentApp()));
  afterAll(() => app.close());
  return app;
}

/** The app on its own database with the scale-1 content seed, the served public contract and a partner key. */
export async function bootContentApp(): Promise<ContentTestApp> {
  const t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  await contentSeeder.run(t.app, { scale: 1, log: () => undefined });
  const contract = await Contract.fetch(t.app, '/public/v1/openapi.json');
  const key = (await t.app.get(PublicKeysService).create('Test partner')).key;
  const bodies: string[] = [];
  let ipSeq = 0;
  const request = async (url: string, opts: RequestOptions = {}) => {
    const k = opts.key === undefined ? key : opts.key;
    const method = opts.method ?? 'GET';
    const res = await t.app.inject({
      method,
      url,
      headers: { ...(k ? { 'x-api-key': k } : {}), ...(opts.headers ?? {}) },
      remoteAddress: opts.ip ?? `10.${Math.floor(++ipSeq / 250) % 250}.${ipSeq % 250}.9`,
    });
    if (method === 'GET') contract.expectValid(res, method, url);
    if (res.statusCode === 200) bodies.push(res.body);
    return res;
  };
  const get = (url: string) => request(url);
  const error = async (url: string, status: number, code: string) => {
    const res = await get(url);
    expect({ url, status: res.statusCode, code: res.json().error?.code }).toEqual({ url, status, code });
    return res.json().error.message as string;
  };
  return {
    t,
    pg,
    contract,
    key,
    bodies,
    request,
    get,
    ok: async (url) => {
      const res = await get(url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      return res.json();
    },
    notFound: async (url) => void (await error(url, 404, 'NOT_FOUND')),
    invalid: async (url, param) => {
      const message = await error(url, 400, 'VALIDATION_FAILED');
      expect({ url, message }).toEqual({ url, message: expect.stringContaining(`query.${param}`) });
      return message;
    },
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
