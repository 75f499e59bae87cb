import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { sanitize } from '../common/sanitize';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { BlogPostListItemResponse, BlogPostResponse, BlogQuery } from './blog.dto';
import { BlogRepository } from './blog.repository';
import { PublicController } from '../openapi/public-controller';
import { iso } from '../common/iso';

@PublicController('blog', 'Blog')
export class BlogController {
  constructor(private readonly repo: BlogRepository) {}

  @Get()
  @ApiOperation({ summary: 'Published posts, newest first', operationId: 'listBlogPosts' })
  @ApiOkResponse({ type: PublicPageOf(BlogPostListItemResponse) })
  async list(@Query() q: BlogQuery): Promise<PublicPage<BlogPostListItemResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list({ category: q.category }, limit, offset);
    return {
      data: rows.map((r) => ({
        title: r.title,
        slug: r.slug,
        excerpt: r.excerpt,
        published_at: iso(r.published_at),
        featured_image_url: r.featured_image_url,
        blog_categories: r.category,
      })),
      page,
      limit,
      total,
    };
  }

  @Get(':slug')
  @ApiOperation({ summary: 'A published post with sanitized HTML content', operationId: 'getBlogPost' })
  @ApiOkResponse({ type: BlogPostResponse })
  async get(@Param('slug') slug: string): Promise<BlogPostResponse> {
    const r = await this.repo.bySlug(slug);
    if (!r) throw ApiError.notFound(`Blog post ${slug}`);
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
}
