import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { BooleanParam, IsBooleanParam, PublicListQuery } from '../platform/public-list';

export class DurbarsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over titles' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
  @ApiPropertyOptional({ enum: ['scheduled', 'live', 'ended'] })
  @IsOptional()
  @IsIn(['scheduled', 'live', 'ended'], { message: 'must be scheduled, live or ended' })
  status?: string;
  @ApiPropertyOptional({ description: 'Language code such as `en`' })
  @IsOptional()
  @Matches(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, { message: 'must be a language code such as en' })
  language?: string;
  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @BooleanParam()
  @IsBooleanParam()
  is_recorded?: boolean;
}

export class DurbarHostResponse {
  @ApiProperty() handle: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) avatar_url: string | null;
  @ApiProperty({ example: 'organization' }) kind: string;
  @ApiProperty() verified: boolean;
}

export class DurbarResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['scheduled', 'live', 'ended'] }) status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) scheduled_for: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) ended_at: string | null;
  @ApiProperty() is_recorded: boolean;
  @ApiProperty({ example: 'en' }) language: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null until the room has ended' })
  peak_listener_count: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'null until the room has ended' })
  total_listeners: number | null;
  @ApiProperty({ type: DurbarHostResponse }) host: DurbarHostResponse;
  @ApiProperty({ description: 'Path on the platform website where the room is joined' }) url: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class DurbarSpeakerResponse extends DurbarHostResponse {
  @ApiProperty({ example: 'host' }) role: string;
  @ApiProperty() speaking_minutes: number;
}

export class DurbarReplayResponse {
  @ApiProperty() url: string;
  @ApiProperty() duration_seconds: number;
  @ApiProperty({ example: 'audio/mpeg' }) mime_type: string;
}

export class DurbarDetailResponse extends DurbarResponse {
  @ApiProperty({ type: [DurbarSpeakerResponse] }) speakers: DurbarSpeakerResponse[];
  @ApiProperty({
    type: DurbarReplayResponse,
    nullable: true,
    description: 'null until the archive upload finished',
  })
  replay: DurbarReplayResponse | null;
  @ApiProperty() has_transcript: boolean;
}

export class TranscriptDurbarResponse {
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() url: string;
}

export class TranscriptSegmentResponse {
  @ApiProperty() start_ms: number;
  @ApiProperty() end_ms: number;
  @ApiProperty() text: string;
  @ApiProperty() lang: string;
  @ApiProperty() confidence: number;
}

export class DurbarTranscriptResponse {
  @ApiProperty({ type: TranscriptDurbarResponse }) durbar: TranscriptDurbarResponse;
  @ApiProperty() language: string;
  @ApiProperty() duration_seconds: number;
  @ApiProperty({ description: 'Segments returned (moderated ones are withheld)' }) segment_count: number;
  @ApiProperty({ description: 'Mean confidence of the returned segments (0 when none)' })
  mean_confidence: number;
  @ApiProperty({ format: 'date-time' }) completed_at: string;
  @ApiProperty() disclaimer: string;
  @ApiProperty({ type: [TranscriptSegmentResponse], description: 'No speaker attribution, permanently' })
  segments: TranscriptSegmentResponse[];
}
