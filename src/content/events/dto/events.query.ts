import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { BooleanParam, IsBooleanParam, IsIsoDate, PublicListQuery } from '../../platform/public-list';

export const EVENT_TYPES = [
  'conference',
  'workshop',
  'meetup',
  'concert',
  'fundraiser',
  'webinar',
  'festival',
  'sports',
  'other',
];

export class EventsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over title, description, location and category' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: `must be one of ${EVENT_TYPES.join(', ')}` })
  event_type?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) category?: string;

  @ApiPropertyOptional({ description: 'Substring of the location, any case' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  location?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'true: paid events; false: free or RSVP events' })
  @IsOptional()
  @BooleanParam()
  @IsBooleanParam()
  is_paid?: boolean;

  @ApiPropertyOptional({ type: Boolean }) @IsOptional() @BooleanParam() @IsBooleanParam() is_online?: boolean;

  @ApiPropertyOptional({ format: 'date', description: 'Events starting on or after this date (UTC)' })
  @IsOptional()
  @IsIsoDate()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Events starting on or before this date (UTC)' })
  @IsOptional()
  @IsIsoDate()
  date_to?: string;
}
