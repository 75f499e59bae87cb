import { ApiProperty } from '@nestjs/swagger';
import { detailResponse } from '../../common/detail-response';
import { iso, isoOrNull } from '../../../common/iso';
import type { SurveyQuestionRow, SurveyRow } from '../surveys.repository';

export class SurveyResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'poll' }) purpose: string;
  @ApiProperty() is_anonymous: boolean;
  @ApiProperty() guests_allowed: boolean;
  @ApiProperty({ enum: ['public_live', 'after_close', 'after_respond'] }) result_visibility: string;
  @ApiProperty({ enum: ['open', 'closed'] }) status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) opens_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) closes_at: string | null;
  @ApiProperty() category_slug: string;
  @ApiProperty({ format: 'date-time' }) published_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ description: 'Whether counts are disclosed (public_live always, after_close once closed)' })
  results_revealed: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'null when withheld, never 0 for withheld' })
  response_count: number | null;
  @ApiProperty({
    description: 'Path on the platform website where the survey is answered',
    example: '/surveys/accra-commuter-survey-2026',
  })
  url: string;
}

export class SurveyOptionResponse {
  @ApiProperty() option_key: string;
  @ApiProperty() label: string;
  @ApiProperty({ type: Number, nullable: true }) response_count: number | null;
}

export class SurveyQuestionResponse {
  @ApiProperty() question_key: string;
  @ApiProperty({ example: 'single_choice' }) input_kind: string;
  @ApiProperty() label: string;
  @ApiProperty({ type: String, nullable: true }) help_text: string | null;
  @ApiProperty() required: boolean;
  @ApiProperty({ type: [SurveyOptionResponse], description: 'Matrix rows and columns are excluded' })
  options: SurveyOptionResponse[];
}

export class SurveyDetailResponse extends SurveyResponse {
  @ApiProperty({ type: [SurveyQuestionResponse] }) questions: SurveyQuestionResponse[];
}

/** The disclosure rule (the repository applies the same one in SQL to the counts it selects). */
export const resultsRevealed = (r: SurveyRow) =>
  r.result_visibility === 'public_live' || (r.result_visibility === 'after_close' && r.status === 'closed');

export function toSurveyResponse(r: SurveyRow): SurveyResponse {
  const shown = resultsRevealed(r);
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

/** `options` is the JSON array the repository builds, which names each option's keys. */
export function toSurveyQuestionResponse(q: SurveyQuestionRow): SurveyQuestionResponse {
  return {
    question_key: q.question_key,
    input_kind: q.input_kind,
    label: q.label,
    help_text: q.help_text,
    required: q.required,
    options: q.options,
  };
}

export function toSurveyDetailResponse(r: SurveyRow, questions: SurveyQuestionRow[]): SurveyDetailResponse {
  return detailResponse<SurveyResponse, SurveyDetailResponse>(toSurveyResponse(r), {
    questions: questions.map(toSurveyQuestionResponse),
  });
}
