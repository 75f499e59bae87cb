import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { BlogRepository } from './blog.repository';
import {
  BlogPostListItemResponse,
  BlogPostResponse,
  toBlogPostListItemResponse,
  toBlogPostResponse,
} from './dto/blog-post.response';
import { BlogQuery } from './dto/blog.query';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('blog_category', 'blog_post')
@PublicController('blog', 'Blog')
export class BlogController {
  constructor(private readonly repo: BlogRepository) {}

  @Get()
  @ApiOperation({ summary: 'Published posts, newest first', operationId: 'listBlogPosts' })
  @ApiOkResponse({ type: PublicPageOf(BlogPostListItemResponse) })
  list(@Query() q: BlogQuery): Promise<PublicPage<BlogPostListItemResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ category: q.category }, limit, offset),
      toBlogPostListItemResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({ summary: 'A published post with sanitized HTML content', operationId: 'getBlogPost' })
  @ApiOkResponse({ type: BlogPostResponse })
  async get(@Param('slug') slug: string): Promise<BlogPostResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Blog post ${slug}`);
    return toBlogPostResponse(row);
  }
}
