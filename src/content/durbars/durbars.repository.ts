import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import { PublicQuery } from '../common/public-query';
import type { Timestamp } from '../../common/iso';

export interface DurbarRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: string;
  scheduled_for: Timestamp | null;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  is_recorded: boolean;
  language: string;
  peak_listener_count: number | null;
  total_listeners: number | null;
  host_handle: string;
  host_name: string;
  host_avatar_url: string | null;
  host_kind: string;
  host_verified: boolean;
  created_at: Timestamp;
}

export interface DurbarSpeakerRow {
  handle: string;
  name: string;
  avatar_url: string | null;
  kind: string;
  verified: boolean;
  role: string;
  speaking_minutes: number;
}

export interface DurbarReplayRow {
  url: string;
  duration_seconds: number;
  mime_type: string;
}

export interface DurbarTranscriptRow {
  language: string;
  duration_seconds: number;
  completed_at: Timestamp;
}

/** A transcript segment without its speaker (never selected). */
export interface TranscriptSegmentRow {
  start_ms: number;
  end_ms: number;
  text: string;
  lang: string;
  confidence: number;
}

export interface DurbarDetailRows {
  row: DurbarRow;
  speakers: DurbarSpeakerRow[];
  replay: DurbarReplayRow | null;
  hasTranscript: boolean;
}

export interface DurbarTranscriptRows {
  row: DurbarRow;
  transcript: DurbarTranscriptRow | null;
  segments: TranscriptSegmentRow[];
}

/** A room's speakers, one array per column (null without any). */
interface SpeakerArrays {
  handles: string[] | null;
  names: string[] | null;
  avatar_urls: (string | null)[] | null;
  kinds: string[] | null;
  verifieds: boolean[] | null;
  roles: string[] | null;
  speaking_minutes: number[] | null;
}

interface ReplayColumns {
  replay_url: string | null;
  replay_duration_seconds: number | null;
  replay_mime_type: string | null;
}

/** A transcript's published segments, one array per column (null without any). */
interface SegmentArrays {
  start_ms: number[] | null;
  end_ms: number[] | null;
  texts: string[] | null;
  langs: string[] | null;
  confidences: number[] | null;
}

interface TranscriptColumns {
  t_language: string | null;
  t_duration_seconds: number | null;
  t_completed_at: Timestamp | null;
}

/**
 * A transcript exists only once completed, with its completion time (a row marked completed without
 * `completed_at` is not one: the schema requires the time), and only for a recorded room (`d`).
 */
const TRANSCRIBED = `t.status = 'completed' AND t.completed_at IS NOT NULL AND d.is_recorded`;

/** Listener counts leave only once the room has ended (decided in SQL); playlists and listeners never. */
const COLUMNS = `d.id, d.slug, d.title, d.description, d.status, d.scheduled_for, d.started_at, d.ended_at, d.is_recorded, d.language,
  CASE WHEN d.status = 'ended' THEN d.peak_listener_count END AS peak_listener_count,
  CASE WHEN d.status = 'ended' THEN d.total_listeners END AS total_listeners,
  d.host_handle, d.host_name, d.host_avatar_url, d.host_kind, d.host_verified, d.created_at`;
/** Cancelled rooms are never published; unlisted ones are absent from lists but reachable by slug. */
const PUBLISHED = `d.status IN ('scheduled', 'live', 'ended')`;
/** Live first (latest started first), then scheduled (soonest first), then ended (most recent first). */
const ORDER = `CASE d.status WHEN 'live' THEN 0 WHEN 'scheduled' THEN 1 ELSE 2 END,
  CASE WHEN d.status = 'scheduled' THEN d.scheduled_for END ASC,
  COALESCE(d.ended_at, d.started_at) DESC, d.id`;

@Injectable()
export class DurbarsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { q?: string; status?: string; language?: string; isRecorded?: boolean },
    limit: number,
    offset: number,
  ) {
    return new PublicQuery(`${PUBLISHED} AND d.visibility = 'public'`)
      .filter(f.q, (v) => `d.search @@ websearch_to_tsquery('simple', ${v})`)
      .filter(f.status, (v) => `d.status = ${v}`)
      .filter(f.language, (v) => `d.language = ${v}`)
      .filter(f.isRecorded, (v) => `d.is_recorded = ${v}`)
      .page<DurbarRow>(this.ds, { select: COLUMNS, from: 'content.durbar d', orderBy: ORDER }, limit, offset);
  }

  /**
   * A published room (unlisted too) with its speakers, its replay (ended, recorded, upload finished) and whether a
   * completed transcript exists: one prepared statement, the speakers aggregated as one array per column.
   */
  async detail(slug: string): Promise<DurbarDetailRows | null> {
    const [r] = await preparedQuery<DurbarRow & SpeakerArrays & ReplayColumns & { has_transcript: boolean }>(
      this.ds,
      'public-durbar-detail',
      `SELECT ${COLUMNS},
          sp.handles, sp.names, sp.avatar_urls, sp.kinds, sp.verifieds, sp.roles, sp.speaking_minutes,
          r.url AS replay_url, r.duration_seconds AS replay_duration_seconds, r.mime_type AS replay_mime_type,
          EXISTS (SELECT 1 FROM content.durbar_transcript t WHERE t.durbar_id = d.id AND ${TRANSCRIBED}) AS has_transcript
        FROM content.durbar d
        LEFT JOIN content.durbar_replay r
          ON r.durbar_id = d.id AND r.upload_status = 'ready' AND d.status = 'ended' AND d.is_recorded
        CROSS JOIN LATERAL (
          SELECT array_agg(s.handle ORDER BY s.position, s.handle) AS handles,
                 array_agg(s.name ORDER BY s.position, s.handle) AS names,
                 array_agg(s.avatar_url ORDER BY s.position, s.handle) AS avatar_urls,
                 array_agg(s.kind ORDER BY s.position, s.handle) AS kinds,
                 array_agg(s.verified ORDER BY s.position, s.handle) AS verifieds,
                 array_agg(s.role ORDER BY s.position, s.handle) AS roles,
                 array_agg(s.speaking_minutes ORDER BY s.position, s.handle) AS speaking_minutes
            FROM content.durbar_speaker s WHERE s.durbar_id = d.id) sp
       WHERE d.slug = $1 AND ${PUBLISHED}`,
      [slug],
    );
    if (!r) return null;
    const speakers = (r.handles ?? []).map((handle, i) => ({
      handle,
      name: r.names![i],
      avatar_url: r.avatar_urls![i],
      kind: r.kinds![i],
      verified: r.verifieds![i],
      role: r.roles![i],
      speaking_minutes: r.speaking_minutes![i],
    }));
    const replay =
      r.replay_url === null
        ? null
        : { url: r.replay_url, duration_seconds: r.replay_duration_seconds!, mime_type: r.replay_mime_type! };
    return { row: r, speakers, replay, hasTranscript: r.has_transcript };
  }

  /**
   * A published room and its completed transcript with the segments not flagged by moderation, in time order (the
   * speaker column is never selected): one prepared statement, the segments as one array per column. `transcript`
   * is null when the room has none; null when there is no such room.
   */
  async transcriptOf(slug: string): Promise<DurbarTranscriptRows | null> {
    const [r] = await preparedQuery<DurbarRow & SegmentArrays & TranscriptColumns>(
      this.ds,
      'public-durbar-transcript',
      `SELECT ${COLUMNS},
          t.language AS t_language, t.duration_seconds AS t_duration_seconds, t.completed_at AS t_completed_at,
          sg.start_ms, sg.end_ms, sg.texts, sg.langs, sg.confidences
        FROM content.durbar d
        LEFT JOIN content.durbar_transcript t ON t.durbar_id = d.id AND ${TRANSCRIBED}
        LEFT JOIN LATERAL (
          SELECT array_agg(s.start_ms ORDER BY s.start_ms, s.id) AS start_ms,
                 array_agg(s.end_ms ORDER BY s.start_ms, s.id) AS end_ms,
                 array_agg(s.text ORDER BY s.start_ms, s.id) AS texts,
                 array_agg(s.lang ORDER BY s.start_ms, s.id) AS langs,
                 array_agg(s.confidence ORDER BY s.start_ms, s.id) AS confidences
            FROM content.durbar_transcript_segment s WHERE s.durbar_id = t.durbar_id AND NOT s.flagged) sg ON true
       WHERE d.slug = $1 AND ${PUBLISHED}`,
      [slug],
    );
    if (!r) return null;
    if (r.t_completed_at === null) return { row: r, transcript: null, segments: [] };
    const segments = (r.start_ms ?? []).map((start_ms, i) => ({
      start_ms,
      end_ms: r.end_ms![i],
      text: r.texts![i],
      lang: r.langs![i],
      confidence: r.confidences![i],
    }));
    return {
      row: r,
      transcript: {
        language: r.t_language!,
        duration_seconds: r.t_duration_seconds!,
        completed_at: r.t_completed_at,
      },
      segments,
    };
  }
}
