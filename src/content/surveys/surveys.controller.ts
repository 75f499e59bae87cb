import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { SurveyDetailResponse, SurveyResponse, SurveysQuery } from './survey.dto';
import { SurveyRow, SurveysRepository } from './surveys.repository';
import { PublicController } from '../openapi/public-controller';
import { iso, isoOrNull } from '../common/iso';

const revealed = (r: SurveyRow) =>
  r.result_visibility === 'public_live' || (r.result_visibility === 'after_close' && r.status === 'closed');

export function toSurveyResponse(r: SurveyRow): SurveyResponse {
  const shown = revealed(r);
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    purpose: r.purpose,
    is_anonymous: r.is_anonymous,
    guests_allowed: r.guests_allowed,
    result_visibility: r.result_visibility,
    status: r.status,
    opens_at: isoOrNull(r.opens_at),
    closes_at: isoOrNull(r.closes_at),
    category_slug: r.category_slug,
    published_at: iso(r.published_at),
    created_at: iso(r.created_at),
    results_revealed: shown,
    response_count: shown ? r.response_count : null,
    url: `/surveys/${r.slug}`,
  };
}

@PublicController('surveys', 'Surveys')
export class SurveysController {
  constructor(private readonly repo: SurveysRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public standalone surveys, newest first', operationId: 'listSurveys' })
  @ApiOkResponse({ type: PublicPageOf(SurveyResponse) })
  async list(@Query() q: SurveysQuery): Promise<PublicPage<SurveyResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list({ category: q.category, status: q.status }, limit, offset);
    return { data: rows.map(toSurveyResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A survey with its questions; counts only when the disclosure rule allows',
    operationId: 'getSurvey',
  })
  @ApiOkResponse({ type: SurveyDetailResponse })
  async get(@Param('slug') slug: string): Promise<SurveyDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Survey ${slug}`);
    const base = toSurveyResponse(row);
    return { ...base, questions: await this.repo.questions(row.id, base.results_revealed) };
  }
}
