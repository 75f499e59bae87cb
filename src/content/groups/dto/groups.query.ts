import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

export class GroupsQuery extends PublicListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;
}
