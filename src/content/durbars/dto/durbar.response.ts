import { ApiProperty } from '@nestjs/swagger';
import { detailResponse } from '../../common/detail-response';
import { iso, isoOrNull } from '../../../common/iso';
import type {
  DurbarReplayRow,
  DurbarRow,
  DurbarSpeakerRow,
  DurbarTranscriptRow,
  TranscriptSegmentRow,
} from '../durbars.repository';

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

export const TRANSCRIPT_DISCLAIMER =
  'Machine transcription: it may contain errors and carries no speaker attribution. Do not present a line as a quotation from a named person.';

/** The room's page on the platform website. */
const roomUrl = (slug: string) => `/durbars/${slug}`;

export function toDurbarResponse(r: DurbarRow): DurbarResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    status: r.status,
    scheduled_for: isoOrNull(r.scheduled_for),
    started_at: isoOrNull(r.started_at),
    ended_at: isoOrNull(r.ended_at),
    is_recorded: r.is_recorded,
    language: r.language,
    peak_listener_count: r.peak_listener_count,
    total_listeners: r.total_listeners,
    host: {
      handle: r.host_handle,
      name: r.host_name,
      avatar_url: r.host_avatar_url,
      kind: r.host_kind,
      verified: r.host_verified,
    },
    url: roomUrl(r.slug),
    created_at: iso(r.created_at),
  };
}

export function toDurbarSpeakerResponse(s: DurbarSpeakerRow): DurbarSpeakerResponse {
  return {
    handle: s.handle,
    name: s.name,
    avatar_url: s.avatar_url,
    kind: s.kind,
    verified: s.verified,
    role: s.role,
    speaking_minutes: s.speaking_minutes,
  };
}

export function toDurbarReplayResponse(r: DurbarReplayRow): DurbarReplayResponse {
  return { url: r.url, duration_seconds: r.duration_seconds, mime_type: r.mime_type };
}

export function toDurbarDetailResponse(
  r: DurbarRow,
  speakers: DurbarSpeakerRow[],
  replay: DurbarReplayRow | null,
  hasTranscript: boolean,
): DurbarDetailResponse {
  return detailResponse<DurbarResponse, DurbarDetailResponse>(toDurbarResponse(r), {
    speakers: speakers.map(toDurbarSpeakerResponse),
    replay: replay && toDurbarReplayResponse(replay),
    has_transcript: hasTranscript,
  });
}

/** Confidences are given to three decimals. */
const rounded = (confidence: number) => Math.round(confidence * 1000) / 1000;

export function toTranscriptSegmentResponse(s: TranscriptSegmentRow): TranscriptSegmentResponse {
  return {
    start_ms: s.start_ms,
    end_ms: s.end_ms,
    text: s.text,
    lang: s.lang,
    confidence: rounded(s.confidence),
  };
}

/** `segments`: the published ones (moderated segments are never selected); the mean is over those, 0 without any. */
export function toDurbarTranscriptResponse(
  r: DurbarRow,
  t: DurbarTranscriptRow,
  segments: TranscriptSegmentRow[],
): DurbarTranscriptResponse {
  const mean = segments.length ? segments.reduce((a, s) => a + s.confidence, 0) / segments.length : 0;
  return {
    durbar: { slug: r.slug, title: r.title, url: roomUrl(r.slug) },
    language: t.language,
    duration_seconds: t.duration_seconds,
    segment_count: segments.length,
    mean_confidence: rounded(mean),
    completed_at: iso(t.completed_at),
    disclaimer: TRANSCRIPT_DISCLAIMER,
    segments: segments.map(toTranscriptSegmentResponse),
  };
}
