import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { BooleanParam, IsBooleanParam, PublicListQuery } from '../../platform/public-list';

export class DurbarsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over titles' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
  @ApiPropertyOptional({ enum: ['scheduled', 'live', 'ended'] })
  @IsOptional()
  @IsIn(['scheduled', 'live', 'ended'], { message: 'must be scheduled, live or ended' })
  status?: string;
  @ApiPropertyOptional({ description: 'Language code such as `en`' })
  @IsOptional()
  @Matches(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, { message: 'must be a language code such as en' })
  language?: string;
  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @BooleanParam()
  @IsBooleanParam()
  is_recorded?: boolean;
}
