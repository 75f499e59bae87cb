import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

export class BlogQuery extends PublicListQuery {
  @ApiPropertyOptional({
    description:
      'Category id (`bcat_…`, as the spec names it) or category slug (`blog_categories.slug` of a list item, e.g. `how-to`)',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be a category id or slug' })
  category?: string;
}
