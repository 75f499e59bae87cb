import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { COUNTRY_CODE } from '../../common/countries';
import { PublicListQuery } from '../../platform/public-list';

export class ReviewEntitiesQuery extends PublicListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) kind?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @Matches(COUNTRY_CODE, { message: 'must be a two-letter country code such as GH' })
  country?: string;
}
