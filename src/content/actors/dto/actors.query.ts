import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsCountryCode } from '../../common/countries';
import { PublicListQuery } from '../../platform/public-list';

export const ACTOR_KINDS = ['person', 'organization', 'government', 'business'];

export class ActorsQuery extends PublicListQuery {
  @ApiPropertyOptional({ enum: ACTOR_KINDS })
  @IsOptional()
  @IsIn(ACTOR_KINDS, { message: `must be one of ${ACTOR_KINDS.join(', ')}` })
  kind?: string;
  @ApiPropertyOptional({ description: 'Country code' })
  @IsOptional()
  @IsCountryCode()
  country?: string;
}
