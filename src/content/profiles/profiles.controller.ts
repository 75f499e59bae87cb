import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { ProfileResponse, toProfileResponse } from './dto/profile.response';
import { ProfilesRepository } from './profiles.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('account', 'signature')
@PublicController('profiles', 'Profiles')
export class ProfilesController {
  constructor(private readonly repo: ProfilesRepository) {}

  @Get(':username')
  @ApiOperation({
    summary: 'A public profile; 404 unless the person made it public',
    operationId: 'getProfile',
  })
  @ApiOkResponse({ type: ProfileResponse })
  async get(@Param('username') username: string): Promise<ProfileResponse> {
    const row = await this.repo.publicProfile(username);
    if (!row) throw ApiError.notFound(`Profile ${username}`);
    return toProfileResponse(row);
  }
}
