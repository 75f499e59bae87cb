import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { EVENT_TYPES } from '../../events/event-types';

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
