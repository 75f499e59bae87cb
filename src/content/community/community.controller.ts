import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { pageOf, PublicListQuery, PublicPage, PublicPageOf } from '../platform/public-list';
import {
  ActorResponse,
  ActorsQuery,
  GroupResponse,
  GroupsQuery,
  HazardResponse,
  HazardsQuery,
  PostResponse,
  PostsQuery,
  ReviewEntitiesQuery,
  ReviewEntityResponse,
} from './community.dto';
import { CommunityRepository } from './community.repository';
import { PublicController } from '../openapi/public-controller';

/** Timestamps as ISO strings; every other value as the repository selected it (public columns only). */
function view<T>(row: unknown): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row as Record<string, unknown>))
    out[k] = v instanceof Date ? v.toISOString() : v;
  return out as T;
}

async function page<T>(
  q: PublicListQuery,
  fetch: (limit: number, offset: number) => Promise<{ rows: unknown[]; total: number }>,
): Promise<PublicPage<T>> {
  const { page, limit, offset } = pageOf(q);
  const { rows, total } = await fetch(limit, offset);
  return { data: rows.map((r) => view<T>(r)), page, limit, total };
}

async function found<T>(what: string, row: Promise<unknown>): Promise<T> {
  const r = await row;
  if (!r) throw ApiError.notFound(what);
  return view<T>(r);
}

@PublicController('actors', 'Actors')
export class ActorsController {
  constructor(private readonly repo: CommunityRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public actors, by handle', operationId: 'listActors' })
  @ApiOkResponse({ type: PublicPageOf(ActorResponse) })
  list(@Query() q: ActorsQuery): Promise<PublicPage<ActorResponse>> {
    return page(q, (l, o) => this.repo.actors({ kind: q.kind, country: q.country }, l, o));
  }

  @Get(':handle')
  @ApiOperation({ summary: 'A public actor', operationId: 'getActor' })
  @ApiOkResponse({ type: ActorResponse })
  get(@Param('handle') handle: string): Promise<ActorResponse> {
    return found(`Actor ${handle}`, this.repo.actor(handle));
  }
}

@PublicController('groups', 'Groups')
export class GroupsController {
  constructor(private readonly repo: CommunityRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public groups, largest first', operationId: 'listGroups' })
  @ApiOkResponse({ type: PublicPageOf(GroupResponse) })
  list(@Query() q: GroupsQuery): Promise<PublicPage<GroupResponse>> {
    return page(q, (l, o) => this.repo.groups({ category: q.category }, l, o));
  }

  @Get(':slug')
  @ApiOperation({ summary: 'A public group (private and secret groups are 404)', operationId: 'getGroup' })
  @ApiOkResponse({ type: GroupResponse })
  get(@Param('slug') slug: string): Promise<GroupResponse> {
    return found(`Group ${slug}`, this.repo.group(slug));
  }
}

@PublicController('posts', 'Posts')
export class PostsController {
  constructor(private readonly repo: CommunityRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public posts, newest first', operationId: 'listPosts' })
  @ApiOkResponse({ type: PublicPageOf(PostResponse) })
  list(@Query() q: PostsQuery): Promise<PublicPage<PostResponse>> {
    return page(q, (l, o) => this.repo.posts({ author: q.author, group: q.group }, l, o));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A public post with its attachments', operationId: 'getPost' })
  @ApiOkResponse({ type: PostResponse })
  get(@Param('id') id: string): Promise<PostResponse> {
    return found(`Post ${id}`, this.repo.post(id));
  }
}

@PublicController('reviews/entities', 'Reviews')
export class ReviewEntitiesController {
  constructor(private readonly repo: CommunityRepository) {}

  @Get()
  @ApiOperation({ summary: 'Reviewed entities, most reviewed first', operationId: 'listReviewEntities' })
  @ApiOkResponse({ type: PublicPageOf(ReviewEntityResponse) })
  list(@Query() q: ReviewEntitiesQuery): Promise<PublicPage<ReviewEntityResponse>> {
    return page(q, (l, o) =>
      this.repo.entities({ kind: q.kind, category: q.category, country: q.country }, l, o),
    );
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A reviewed entity (aggregates only; no individual review)',
    operationId: 'getReviewEntity',
  })
  @ApiOkResponse({ type: ReviewEntityResponse })
  get(@Param('slug') slug: string): Promise<ReviewEntityResponse> {
    return found(`Entity ${slug}`, this.repo.entity(slug));
  }
}

@PublicController('safety/hazards', 'Safety')
export class HazardsController {
  constructor(private readonly repo: CommunityRepository) {}

  @Get()
  @ApiOperation({ summary: 'Verified and resolved hazards, newest report first', operationId: 'listHazards' })
  @ApiOkResponse({ type: PublicPageOf(HazardResponse) })
  list(@Query() q: HazardsQuery): Promise<PublicPage<HazardResponse>> {
    return page(q, (l, o) =>
      this.repo.hazards(
        { hazardType: q.hazard_type, severity: q.severity, status: q.status, country: q.country },
        l,
        o,
      ),
    );
  }

  @Get(':caseNumber')
  @ApiOperation({ summary: 'A verified or resolved hazard, by case number', operationId: 'getHazard' })
  @ApiOkResponse({ type: HazardResponse })
  get(@Param('caseNumber') caseNumber: string): Promise<HazardResponse> {
    return found(`Hazard ${caseNumber}`, this.repo.hazard(caseNumber));
  }
}
