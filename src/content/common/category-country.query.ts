import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsCountryCode } from './countries';
import { PublicListQuery } from '../platform/public-list';

/** Filters shared by campaigns and petitions (`CampaignsQuery`, `PetitionsQuery`). */
export class CategoryCountryQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Category (any case, e.g. `education`)' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;

  @ApiPropertyOptional({ description: 'Target country code (ISO 3166-1 alpha-2, e.g. `GH`)' })
  @IsOptional()
  @IsCountryCode()
  country?: string;
}
