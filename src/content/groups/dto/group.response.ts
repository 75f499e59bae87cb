import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../../../common/iso';
import type { GroupRow } from '../groups.repository';

export class GroupResponse {
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() category: string;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty() member_count: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toGroupResponse(r: GroupRow): GroupResponse {
  return {
    slug: r.slug,
    name: r.name,
    description: r.description,
    category: r.category,
    avatar_url: r.avatar_url,
    member_count: r.member_count,
    created_at: iso(r.created_at),
  };
}
