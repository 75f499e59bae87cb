import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsCountryCode } from '../../common/countries';
import { PublicListQuery } from '../../platform/public-list';

export const HAZARD_TYPES = ['flood', 'road', 'fire', 'crime', 'health', 'infrastructure'];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'];

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
  @IsCountryCode()
  country?: string;
}
