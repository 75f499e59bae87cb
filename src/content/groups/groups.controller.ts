import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { GroupResponse, toGroupResponse } from './dto/group.response';
import { GroupsQuery } from './dto/groups.query';
import { GroupsRepository } from './groups.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('community_group')
@PublicController('groups', 'Groups')
export class GroupsController {
  constructor(private readonly repo: GroupsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public groups, largest first', operationId: 'listGroups' })
  @ApiOkResponse({ type: PublicPageOf(GroupResponse) })
  list(@Query() q: GroupsQuery): Promise<PublicPage<GroupResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ category: q.category }, limit, offset),
      toGroupResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({ summary: 'A public group (private and secret groups are 404)', operationId: 'getGroup' })
  @ApiOkResponse({ type: GroupResponse })
  async get(@Param('slug') slug: string): Promise<GroupResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Group ${slug}`);
    return toGroupResponse(row);
  }
}
