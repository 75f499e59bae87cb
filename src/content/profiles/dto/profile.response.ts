import { ApiProperty } from '@nestjs/swagger';
import type { ProfileRow } from '../profiles.repository';

export class ProfileResponse {
  @ApiProperty() username: string;
  @ApiProperty({ type: String, nullable: true }) full_name: string | null;
  @ApiProperty({ type: String, nullable: true }) bio: string | null;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ type: String, nullable: true }) account_type: string | null;
  @ApiProperty({ description: 'Petitions this person signed' }) signatures_count: number;
}

export function toProfileResponse(r: ProfileRow): ProfileResponse {
  return {
    username: r.username,
    full_name: r.full_name,
    bio: r.bio,
    avatar_url: r.avatar_url,
    country: r.country,
    account_type: r.account_type,
    signatures_count: r.signatures_count,
  };
}
