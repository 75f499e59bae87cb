/**
 * The endpoints `npm run bench -- public` can measure, each with its URL (the same on Gatehouse and on the bare
 * handler, bare-public.ts, for those it serves), and the samples their detail URLs name.
 */
import type { DataSource } from 'typeorm';

/** One public item of each kind, to request details of. */
export interface Samples {
  campaign: string;
  petition: string;
  event: string;
  job: string;
  survey: string;
  durbar: string;
  transcript: string;
  listing: string;
  post: string;
  blog: string;
  profile: string;
  actor: string;
  group: string;
  entity: string;
  hazard: string;
}

/** Picks samples from the middle of each public list. */
export async function samples(ds: DataSource): Promise<Samples> {
  const one = async (sql: string) => ((await ds.query(sql)) as { v: string }[])[0]?.v ?? 'none';
  const mid = (table: string, col: string, where: string) =>
    one(
      `SELECT ${col} AS v FROM content.${table} WHERE ${where} ORDER BY ${col} OFFSET (SELECT count(*) / 2 FROM content.${table} WHERE ${where}) LIMIT 1`,
    );
  return {
    campaign: await mid('campaign', 'slug', `status IN ('active','won')`),
    petition: await mid('petition', 'slug', `status = 'active'`),
    event: await mid('event', 'slug', `status = 'published' AND is_paid`),
    job: await mid('job', 'slug', `status = 'open'`),
    survey: await mid(
      'survey',
      'slug',
      `status IN ('open','closed') AND visibility = 'public' AND attached_to_type IS NULL`,
    ),
    durbar: await mid('durbar', 'slug', `status = 'ended' AND visibility = 'public'`),
    transcript: await one(
      `SELECT d.slug AS v FROM content.durbar d JOIN content.durbar_transcript t ON t.durbar_id = d.id WHERE t.status = 'completed' AND d.is_recorded LIMIT 1`,
    ),
    listing: await mid('listing', 'id', `status = 'active'`),
    post: await mid('post', 'id', `status = 'published' AND group_slug IS NULL`),
    blog: await mid('blog_post', 'slug', `status = 'published'`),
    profile: await mid('account', 'username', 'public_profile'),
    actor: await mid('actor', 'handle', 'is_public'),
    group: await mid('community_group', 'slug', `visibility = 'public'`),
    entity: await mid('review_entity', 'slug', `status = 'published'`),
    hazard: await mid('safety_hazard', 'case_number', `status IN ('verified','resolved')`),
  };
}

export interface Endpoint {
  name: string;
  path: (s: Samples) => string;
}

export const ENDPOINTS: Endpoint[] = [
  { name: 'campaigns', path: () => '/public/v1/campaigns' },
  {
    name: 'campaigns?country',
    // limit=10: at 1 % scale a country has about 14 public campaigns, so a page of 20 would hold fewer items there.
    path: () => '/public/v1/campaigns?country=GH&limit=10',
  },
  {
    name: 'campaign',
    path: (s) => `/public/v1/campaigns/${s.campaign}`,
  },
  { name: 'petitions', path: () => '/public/v1/petitions' },
  {
    name: 'petition',
    path: (s) => `/public/v1/petitions/${s.petition}`,
  },
  {
    name: 'events?q',
    path: () => '/public/v1/events?q=summit',
  },
  { name: 'events', path: () => '/public/v1/events' },
  { name: 'event', path: (s) => `/public/v1/events/${s.event}` },
  { name: 'jobs', path: () => '/public/v1/jobs' },
  { name: 'jobs?q', path: () => '/public/v1/jobs?q=python' },
  { name: 'job', path: (s) => `/public/v1/jobs/${s.job}` },
  { name: 'surveys', path: () => '/public/v1/surveys' },
  {
    name: 'survey',
    path: (s) => `/public/v1/surveys/${s.survey}`,
  },
  { name: 'durbars', path: () => '/public/v1/durbars' },
  {
    name: 'durbar',
    path: (s) => `/public/v1/durbars/${s.durbar}`,
  },
  {
    name: 'transcript',
    path: (s) => `/public/v1/durbars/${s.transcript}/transcript`,
  },
  {
    name: 'marketplace',
    path: () => '/public/v1/marketplace/services',
  },
  {
    name: 'listing',
    path: (s) => `/public/v1/marketplace/services/${s.listing}`,
  },
  {
    name: 'categories',
    path: () => '/public/v1/marketplace/categories',
  },
  { name: 'blog', path: () => '/public/v1/blog' },
  { name: 'blog post', path: (s) => `/public/v1/blog/${s.blog}` },
  {
    name: 'profile',
    path: (s) => `/public/v1/profiles/${s.profile}`,
  },
  { name: 'stats', path: () => '/public/v1/stats' },
  { name: 'actors', path: () => '/public/v1/actors' },
  { name: 'actor', path: (s) => `/public/v1/actors/${s.actor}` },
  { name: 'posts', path: () => '/public/v1/posts' },
  { name: 'post', path: (s) => `/public/v1/posts/${s.post}` },
  { name: 'groups', path: () => '/public/v1/groups' },
  { name: 'group', path: (s) => `/public/v1/groups/${s.group}` },
  {
    name: 'review entities',
    path: () => '/public/v1/reviews/entities',
  },
  {
    name: 'review entity',
    path: (s) => `/public/v1/reviews/entities/${s.entity}`,
  },
  { name: 'hazards', path: () => '/public/v1/safety/hazards' },
  {
    name: 'hazard',
    path: (s) => `/public/v1/safety/hazards/${s.hazard}`,
  },
];
