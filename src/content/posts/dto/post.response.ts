import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../../../common/iso';
import type { PostRow } from '../posts.repository';

export class PostAuthorResponse {
  @ApiProperty() handle: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty() kind: string;
  @ApiProperty() verified: boolean;
}

export class PostAttachmentResponse {
  @ApiProperty({
    description:
      'Open set: campaign, petition, event, job, listing, business, review, poll, survey, … — handle unknown types',
  })
  type: string;
  @ApiProperty() title: string;
  @ApiProperty() url: string;
}

export class PostResponse {
  @ApiProperty() id: string;
  @ApiProperty() body: string;
  @ApiProperty({ type: String, nullable: true }) group_slug: string | null;
  @ApiProperty() like_count: number;
  @ApiProperty() comment_count: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: PostAuthorResponse }) author: PostAuthorResponse;
  @ApiProperty({ type: [PostAttachmentResponse] }) attachments: PostAttachmentResponse[];
}

/**
 * `author` and `attachments` are the JSON the repository builds, which names each of their keys. The keys come
 * in the order the API has always sent them (the post's own columns, then author and attachments).
 */
export function toPostResponse(r: PostRow): PostResponse {
  return {
    id: r.id,
    body: r.body,
    group_slug: r.group_slug,
    like_count: r.like_count,
    comment_count: r.comment_count,
    created_at: iso(r.created_at),
    author: r.author,
    attachments: r.attachments,
  };
}
