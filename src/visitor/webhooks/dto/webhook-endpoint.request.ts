import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { EVENT_TYPES } from '../../events/event-types';
import { ListQuery } from '../../platform/pagination';

const EVENTS_DESCRIPTION =
  'Event types, or `["*"]` for every type (including future ones) except `watchlist.matched`';

export class CreateWebhookEndpointBody {
  @ApiProperty({ example: 'https://hooks.example.com/gatehouse', description: 'Public HTTPS URL' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiProperty({ type: [String], example: ['visit.created'], description: EVENTS_DESCRIPTION })
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length + 1)
  @IsString({ each: true })
  enabled_events: string[];
}

export class UpdateWebhookEndpointBody {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) url?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) description?: string;
  @ApiPropertyOptional({ type: [String], description: EVENTS_DESCRIPTION })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EVENT_TYPES.length + 1)
  @IsString({ each: true })
  enabled_events?: string[];
  @ApiPropertyOptional({ enum: ['enabled', 'disabled'] })
  @IsOptional()
  @IsIn(['enabled', 'disabled'], { message: 'must be enabled or disabled' })
  status?: 'enabled' | 'disabled';
}

export class TestWebhookBody {
  @ApiProperty({ enum: EVENT_TYPES, description: 'Type of the sample event to send' })
  @IsString()
  type: string;
}

export class RedeliverBody {
  @ApiPropertyOptional({
    description: 'Only this endpoint (`whep_…`); default: every endpoint subscribed now',
  })
  @IsOptional()
  @IsString()
  @Matches(/^whep_[0-9A-Za-z]+$/, { message: 'must be a whep_… id' })
  endpoint_id?: string;
}

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
