import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { ListQuery } from '../../platform/pagination';
import { EVENT_TYPES } from '../event-types';

export class EventsQuery extends ListQuery {
  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: 'must be a known event type' })
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only events created after this moment' })
  @IsOptional()
  @IsTimestamp()
  created_after?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only events created before this moment' })
  @IsOptional()
  @IsTimestamp()
  created_before?: string;
}
