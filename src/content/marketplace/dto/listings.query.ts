import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

export class ListingsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over title, description and location' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
  @ApiPropertyOptional({ enum: ['service', 'goods'] })
  @IsOptional()
  @IsIn(['service', 'goods'], { message: 'must be service or goods' })
  listing_type?: string;
  @ApiPropertyOptional({ description: 'Category slug (any case)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9-]{1,100}$/, { message: 'must be a category slug' })
  category?: string;
  @ApiPropertyOptional({ description: 'Substring of the location, any case' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  location?: string;
}
