import { Get, Inject, Injectable, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { ProfilesRepository } from './profiles.repository';
import { PublicController } from '../openapi/public-controller';

export class ProfileResponse {
  @ApiProperty() username: string;
  @ApiProperty({ type: String, nullable: true }) full_name: string | null;
  @ApiProperty({ type: String, nullable: true }) bio: string | null;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ type: String, nullable: true }) account_type: string | null;
  @ApiProperty({ description: 'Petitions this person signed' }) signatures_count: number;
}

@PublicController('profiles', 'Profiles')
@Injectable()
export class ProfilesController {
  constructor(@Inject(ProfilesRepository) private readonly repo: ProfilesRepository) {}

  @Get(':username')
  @ApiOperation({
    summary: 'A public profile; 404 unless the person made it public',
    operationId: 'getProfile',
  })
  @ApiOkResponse({ type: ProfileResponse })
  async get(@Param('username') username: string): Promise<ProfileResponse> {
    const p = await this.repo.publicProfile(username);
    if (!p) throw ApiError.notFound(`Profile ${username}`);
    return p;
  }
}
