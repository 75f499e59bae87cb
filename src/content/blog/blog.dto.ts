import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { PublicListQuery } from '../platform/public-list';

export class BlogQuery extends PublicListQuery {
  @ApiPropertyOptional({
    description:
      'Category id (`bcat_…`, as the spec names it) or category slug (`blog_categories.slug` of a list item, e.g. `how-to`)',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be a category id or slug' })
  category?: string;
}

export class BlogCategoryResponse {
  @ApiProperty() name: string;
  @ApiProperty() slug: string;
}

export class BlogPostListItemResponse {
  @ApiProperty() title: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: String, nullable: true }) excerpt: string | null;
  @ApiProperty({ format: 'date-time' }) published_at: string;
  @ApiProperty({ type: String, nullable: true }) featured_image_url: string | null;
  @ApiProperty({ type: BlogCategoryResponse, nullable: true, description: 'Named `category` in the detail' })
  blog_categories: BlogCategoryResponse | null;
}

export class BlogPostResponse {
  @ApiProperty() title: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: String, nullable: true }) excerpt: string | null;
  @ApiProperty({ description: 'Sanitized HTML' }) content: string;
  @ApiProperty({ format: 'date-time' }) published_at: string;
  @ApiProperty({ type: String, nullable: true }) featured_image_url: string | null;
  @ApiProperty({ type: BlogCategoryResponse, nullable: true }) category: BlogCategoryResponse | null;
}
