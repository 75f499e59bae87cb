import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsCountryCode } from '../../common/countries';
import { PublicListQuery } from '../../platform/public-list';

export class ReviewEntitiesQuery extends PublicListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) kind?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @IsCountryCode()
  country?: string;
}
