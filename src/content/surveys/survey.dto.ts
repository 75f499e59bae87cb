import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PublicListQuery } from '../platform/public-list';

export class SurveysQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Category slug' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;
  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @IsOptional()
  @IsIn(['open', 'closed'], { message: 'must be open or closed' })
  status?: string;
}

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
    example: '/surveys/…',
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
