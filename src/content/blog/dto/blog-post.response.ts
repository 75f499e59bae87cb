import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../../../common/iso';
import { sanitize } from '../../common/sanitize';
import type { BlogPostRow, BlogRow } from '../blog.repository';

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

/** `blog_categories` is the JSON object the repository builds (name and slug), or null. */
export function toBlogPostListItemResponse(r: BlogRow): BlogPostListItemResponse {
  return {
    title: r.title,
    slug: r.slug,
    excerpt: r.excerpt,
    published_at: iso(r.published_at),
    featured_image_url: r.featured_image_url,
    blog_categories: r.category,
  };
}

export function toBlogPostResponse(r: BlogPostRow): BlogPostResponse {
  return {
    title: r.title,
    slug: r.slug,
    excerpt: r.excerpt,
    content: sanitize(r.content_html),
    published_at: iso(r.published_at),
    featured_image_url: r.featured_image_url,
    category: r.category,
  };
}
