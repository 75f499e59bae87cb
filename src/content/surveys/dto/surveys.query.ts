import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

export class SurveysQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Category slug (any case)' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;
  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @IsOptional()
  @IsIn(['open', 'closed'], { message: 'must be open or closed' })
  status?: string;
}
