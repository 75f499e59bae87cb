import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

const SLUG = /^[a-z0-9][a-z0-9_-]{0,99}$/;

export class PostsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Author handle' })
  @IsOptional()
  @Matches(SLUG, { message: 'must be an actor handle' })
  author?: string;
  @ApiPropertyOptional({ description: 'Group slug' })
  @IsOptional()
  @Matches(SLUG, { message: 'must be a group slug' })
  group?: string;
}
