import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../../../common/iso';
import type { ActorRow } from '../actors.repository';
import { ACTOR_KINDS } from './actors.query';

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

export function toActorResponse(r: ActorRow): ActorResponse {
  return {
    handle: r.handle,
    display_name: r.display_name,
    kind: r.kind,
    bio: r.bio,
    avatar_url: r.avatar_url,
    verified: r.verified,
    country: r.country,
    created_at: iso(r.created_at),
  };
}
