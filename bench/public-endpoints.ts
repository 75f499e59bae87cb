/**
 * The endpoints `npm run bench -- public` measures, each with its URL on Gatehouse and the same work for the
 * baseline: the controller method called directly (same SQL, same mapping), behind bare Fastify — no Nest
 * pipeline, validation, guards, rate limit, ETag or request log.
 */
import type { DataSource } from 'typeorm';
import { Clock } from '../src/common/clock';
import { CampaignsController } from '../src/content/campaigns/campaigns.controller';
import { CampaignsRepository } from '../src/content/campaigns/campaigns.repository';
import { BlogController } from '../src/content/blog/blog.controller';
import { BlogRepository } from '../src/content/blog/blog.repository';
import { ActorsController } from '../src/content/actors/actors.controller';
import { ActorsRepository } from '../src/content/actors/actors.repository';
import { GroupsController } from '../src/content/groups/groups.controller';
import { GroupsRepository } from '../src/content/groups/groups.repository';
import { PostsController } from '../src/content/posts/posts.controller';
import { PostsRepository } from '../src/content/posts/posts.repository';
import { ReviewEntitiesController } from '../src/content/reviews/review-entities.controller';
import { ReviewEntitiesRepository } from '../src/content/reviews/review-entities.repository';
import { HazardsController } from '../src/content/safety/hazards.controller';
import { HazardsRepository } from '../src/content/safety/hazards.repository';
import { DurbarsController } from '../src/content/durbars/durbars.controller';
import { DurbarsRepository } from '../src/content/durbars/durbars.repository';
import { EventsController } from '../src/content/events/events.controller';
import { EventsRepository } from '../src/content/events/events.repository';
import { JobsController } from '../src/content/jobs/jobs.controller';
import { JobsRepository } from '../src/content/jobs/jobs.repository';
import { MarketplaceController } from '../src/content/marketplace/marketplace.controller';
import { MarketplaceRepository } from '../src/content/marketplace/marketplace.repository';
import { PetitionsController } from '../src/content/petitions/petitions.controller';
import { PetitionsRepository } from '../src/content/petitions/petitions.repository';
import { ProfilesController } from '../src/content/profiles/profiles.controller';
import { ProfilesRepository } from '../src/content/profiles/profiles.repository';
import { StatsController } from '../src/content/stats/stats.controller';
import { StatsRepository } from '../src/content/stats/stats.repository';
import { SurveysController } from '../src/content/surveys/surveys.controller';
import { SurveysRepository } from '../src/content/surveys/surveys.repository';

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

export function controllers(ds: DataSource) {
  const clock = new Clock();
  return {
    campaigns: new CampaignsController(new CampaignsRepository(ds)),
    petitions: new PetitionsController(new PetitionsRepository(ds), clock),
    events: new EventsController(new EventsRepository(ds), clock),
    jobs: new JobsController(new JobsRepository(ds)),
    surveys: new SurveysController(new SurveysRepository(ds)),
    durbars: new DurbarsController(new DurbarsRepository(ds)),
    marketplace: new MarketplaceController(new MarketplaceRepository(ds)),
    blog: new BlogController(new BlogRepository(ds)),
    profiles: new ProfilesController(new ProfilesRepository(ds)),
    stats: new StatsController(new StatsRepository(ds), clock),
    actors: new ActorsController(new ActorsRepository(ds)),
    groups: new GroupsController(new GroupsRepository(ds)),
    posts: new PostsController(new PostsRepository(ds)),
    entities: new ReviewEntitiesController(new ReviewEntitiesRepository(ds)),
    hazards: new HazardsController(new HazardsRepository(ds)),
  };
}
type C = ReturnType<typeof controllers>;

export interface Endpoint {
  name: string;
  path: (s: Samples) => string;
  baseline: (c: C, s: Samples) => Promise<unknown>;
}

export const ENDPOINTS: Endpoint[] = [
  { name: 'campaigns', path: () => '/public/v1/campaigns', baseline: (c) => c.campaigns.list({}) },
  {
    name: 'campaigns?country',
    // limit=10: at 1 % scale a country has about 14 public campaigns, so a page of 20 would hold fewer items there.
    path: () => '/public/v1/campaigns?country=GH&limit=10',
    baseline: (c) => c.campaigns.list({ country: 'GH', limit: 10 }),
  },
  {
    name: 'campaign',
    path: (s) => `/public/v1/campaigns/${s.campaign}`,
    baseline: (c, s) => c.campaigns.get(s.campaign),
  },
  { name: 'petitions', path: () => '/public/v1/petitions', baseline: (c) => c.petitions.list({}) },
  {
    name: 'petition',
    path: (s) => `/public/v1/petitions/${s.petition}`,
    baseline: (c, s) => c.petitions.get(s.petition),
  },
  {
    name: 'events?q',
    path: () => '/public/v1/events?q=summit',
    baseline: (c) => c.events.list({ q: 'summit' }),
  },
  { name: 'events', path: () => '/public/v1/events', baseline: (c) => c.events.list({}) },
  { name: 'event', path: (s) => `/public/v1/events/${s.event}`, baseline: (c, s) => c.events.get(s.event) },
  { name: 'jobs', path: () => '/public/v1/jobs', baseline: (c) => c.jobs.list({}) },
  { name: 'jobs?q', path: () => '/public/v1/jobs?q=python', baseline: (c) => c.jobs.list({ q: 'python' }) },
  { name: 'job', path: (s) => `/public/v1/jobs/${s.job}`, baseline: (c, s) => c.jobs.get(s.job) },
  { name: 'surveys', path: () => '/public/v1/surveys', baseline: (c) => c.surveys.list({}) },
  {
    name: 'survey',
    path: (s) => `/public/v1/surveys/${s.survey}`,
    baseline: (c, s) => c.surveys.get(s.survey),
  },
  { name: 'durbars', path: () => '/public/v1/durbars', baseline: (c) => c.durbars.list({}) },
  {
    name: 'durbar',
    path: (s) => `/public/v1/durbars/${s.durbar}`,
    baseline: (c, s) => c.durbars.get(s.durbar),
  },
  {
    name: 'transcript',
    path: (s) => `/public/v1/durbars/${s.transcript}/transcript`,
    baseline: (c, s) => c.durbars.transcript(s.transcript),
  },
  {
    name: 'marketplace',
    path: () => '/public/v1/marketplace/services',
    baseline: (c) => c.marketplace.list({}),
  },
  {
    name: 'listing',
    path: (s) => `/public/v1/marketplace/services/${s.listing}`,
    baseline: (c, s) => c.marketplace.get(s.listing),
  },
  {
    name: 'categories',
    path: () => '/public/v1/marketplace/categories',
    baseline: (c) => c.marketplace.categories(),
  },
  { name: 'blog', path: () => '/public/v1/blog', baseline: (c) => c.blog.list({}) },
  { name: 'blog post', path: (s) => `/public/v1/blog/${s.blog}`, baseline: (c, s) => c.blog.get(s.blog) },
  {
    name: 'profile',
    path: (s) => `/public/v1/profiles/${s.profile}`,
    baseline: (c, s) => c.profiles.get(s.profile),
  },
  { name: 'stats', path: () => '/public/v1/stats', baseline: (c) => c.stats.get() },
  { name: 'actors', path: () => '/public/v1/actors', baseline: (c) => c.actors.list({}) },
  { name: 'actor', path: (s) => `/public/v1/actors/${s.actor}`, baseline: (c, s) => c.actors.get(s.actor) },
  { name: 'posts', path: () => '/public/v1/posts', baseline: (c) => c.posts.list({}) },
  { name: 'post', path: (s) => `/public/v1/posts/${s.post}`, baseline: (c, s) => c.posts.get(s.post) },
  { name: 'groups', path: () => '/public/v1/groups', baseline: (c) => c.groups.list({}) },
  { name: 'group', path: (s) => `/public/v1/groups/${s.group}`, baseline: (c, s) => c.groups.get(s.group) },
  {
    name: 'review entities',
    path: () => '/public/v1/reviews/entities',
    baseline: (c) => c.entities.list({}),
  },
  {
    name: 'review entity',
    path: (s) => `/public/v1/reviews/entities/${s.entity}`,
    baseline: (c, s) => c.entities.get(s.entity),
  },
  { name: 'hazards', path: () => '/public/v1/safety/hazards', baseline: (c) => c.hazards.list({}) },
  {
    name: 'hazard',
    path: (s) => `/public/v1/safety/hazards/${s.hazard}`,
    baseline: (c, s) => c.hazards.get(s.hazard),
  },
];
