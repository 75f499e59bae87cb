import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { PostResponse, toPostResponse } from './dto/post.response';
import { PostsQuery } from './dto/posts.query';
import { PostsRepository } from './posts.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('actor', 'community_group', 'post', 'post_attachment')
@PublicController('posts', 'Posts')
export class PostsController {
  constructor(private readonly repo: PostsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public posts, newest first', operationId: 'listPosts' })
  @ApiOkResponse({ type: PublicPageOf(PostResponse) })
  list(@Query() q: PostsQuery): Promise<PublicPage<PostResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ author: q.author, group: q.group }, limit, offset),
      toPostResponse,
    );
  }

  @Get(':id')
  @ApiOperation({ summary: 'A public post with its attachments', operationId: 'getPost' })
  @ApiOkResponse({ type: PostResponse })
  async get(@Param('id') id: string): Promise<PostResponse> {
    const row = await this.repo.byId(id);
    if (!row) throw ApiError.notFound(`Post ${id}`);
    return toPostResponse(row);
  }
}
