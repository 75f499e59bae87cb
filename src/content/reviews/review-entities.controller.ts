import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { ReviewEntitiesQuery } from './dto/review-entities.query';
import { ReviewEntityResponse, toReviewEntityResponse } from './dto/review-entity.response';
import { ReviewEntitiesRepository } from './review-entities.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('review_entity')
@PublicController('reviews/entities', 'Reviews')
export class ReviewEntitiesController {
  constructor(private readonly repo: ReviewEntitiesRepository) {}

  @Get()
  @ApiOperation({ summary: 'Reviewed entities, most reviewed first', operationId: 'listReviewEntities' })
  @ApiOkResponse({ type: PublicPageOf(ReviewEntityResponse) })
  list(@Query() q: ReviewEntitiesQuery): Promise<PublicPage<ReviewEntityResponse>> {
    return publicList(
      q,
      (limit, offset) =>
        this.repo.list({ kind: q.kind, category: q.category, country: q.country }, limit, offset),
      toReviewEntityResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A reviewed entity (aggregates only; no individual review)',
    operationId: 'getReviewEntity',
  })
  @ApiOkResponse({ type: ReviewEntityResponse })
  async get(@Param('slug') slug: string): Promise<ReviewEntityResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Entity ${slug}`);
    return toReviewEntityResponse(row);
  }
}
