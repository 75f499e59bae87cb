import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import {
  resultsRevealed,
  SurveyDetailResponse,
  SurveyResponse,
  toSurveyDetailResponse,
  toSurveyResponse,
} from './dto/survey.response';
import { SurveysQuery } from './dto/surveys.query';
import { SurveysRepository } from './surveys.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('survey', 'survey_option', 'survey_question', 'survey_response', 'survey_response_choice')
@PublicController('surveys', 'Surveys')
export class SurveysController {
  constructor(private readonly repo: SurveysRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public standalone surveys, newest first', operationId: 'listSurveys' })
  @ApiOkResponse({ type: PublicPageOf(SurveyResponse) })
  list(@Query() q: SurveysQuery): Promise<PublicPage<SurveyResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ category: q.category, status: q.status }, limit, offset),
      toSurveyResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'One survey with its questions',
    description: 'Answer counts only when the disclosure rule allows.',
    operationId: 'getSurvey',
  })
  @ApiOkResponse({ type: SurveyDetailResponse })
  async get(@Param('slug') slug: string): Promise<SurveyDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Survey ${slug}`);
    return toSurveyDetailResponse(row, await this.repo.questions(row.id, resultsRevealed(row)));
  }
}
