import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { COUNTRY_CODE } from '../common/countries';
import { PublicListQuery } from '../platform/public-list';

export const ACTOR_KINDS = ['person', 'organization', 'government', 'business'];
export const HAZARD_TYPES = ['flood', 'road', 'fire', 'crime', 'health', 'infrastructure'];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const SLUG = /^[a-z0-9][a-z0-9_-]{0,99}$/;

export class ActorsQuery extends PublicListQuery {
  @ApiPropertyOptional({ enum: ACTOR_KINDS })
  @IsOptional()
  @IsIn(ACTOR_KINDS, { message: `must be one of ${ACTOR_KINDS.join(', ')}` })
  kind?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @Matches(COUNTRY_CODE, { message: 'must be a two-letter country code such as GH' })
  country?: string;
}

export class ActorResponse {
  @ApiProperty() handle: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ enum: ACTOR_KINDS }) kind: string;
  @ApiProperty({ type: String, nullable: true }) bio: string | null;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty() verified: boolean;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class GroupsQuery extends PublicListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;
}

export class GroupResponse {
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() category: string;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty() member_count: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

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

export class ReviewEntitiesQuery extends PublicListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) kind?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @Matches(COUNTRY_CODE, { message: 'must be a two-letter country code such as GH' })
  country?: string;
}

export class ReviewEntityResponse {
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'business' }) kind: string;
  @ApiProperty() category: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Mean stars, 1 to 5; null without reviews' })
  rating: number | null;
  @ApiProperty() review_count: number;
  @ApiProperty() is_claimed: boolean;
  @ApiProperty() is_verified: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class HazardsQuery extends PublicListQuery {
  @ApiPropertyOptional({ enum: HAZARD_TYPES })
  @IsOptional()
  @IsIn(HAZARD_TYPES, { message: `must be one of ${HAZARD_TYPES.join(', ')}` })
  hazard_type?: string;
  @ApiPropertyOptional({ enum: SEVERITIES })
  @IsOptional()
  @IsIn(SEVERITIES, { message: `must be one of ${SEVERITIES.join(', ')}` })
  severity?: string;
  @ApiPropertyOptional({ enum: ['verified', 'resolved'] })
  @IsOptional()
  @IsIn(['verified', 'resolved'], { message: 'must be verified or resolved' })
  status?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @Matches(COUNTRY_CODE, { message: 'must be a two-letter country code such as GH' })
  country?: string;
}

export class HazardResponse {
  @ApiProperty({ example: 'HZ-2026-000123' }) case_number: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: HAZARD_TYPES }) hazard_type: string;
  @ApiProperty({ enum: SEVERITIES }) severity: string;
  @ApiProperty({ enum: ['verified', 'resolved'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ format: 'date-time' }) reported_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at: string | null;
}
