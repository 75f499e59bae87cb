import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import { PublicQuery } from '../common/public-query';

export interface DurbarRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  status: string;
  scheduled_for: Date | null;
  started_at: Date | null;
  ended_at: Date | null;
  is_recorded: boolean;
  language: string;
  peak_listener_count: number | null;
  total_listeners: number | null;
  host_handle: string;
  host_name: string;
  host_avatar_url: string | null;
  host_kind: string;
  host_verified: boolean;
  created_at: Date;
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
  completed_at: Date;
}

/** A transcript segment without its speaker (never selected). */
export interface TranscriptSegmentRow {
  start_ms: number;
  end_ms: number;
  text: string;
  lang: string;
  confidence: number;
}

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

  async bySlug(slug: string): Promise<DurbarRow | null> {
    const rows: DurbarRow[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM content.durbar d WHERE d.slug = $1 AND ${PUBLISHED}`,
      [slug],
    );
    return rows[0] ?? null;
  }

  speakers(durbarId: string): Promise<DurbarSpeakerRow[]> {
    return this.ds.query(
      `SELECT handle, name, avatar_url, kind, verified, role, speaking_minutes FROM content.durbar_speaker
        WHERE durbar_id = $1 ORDER BY position, handle`,
      [durbarId],
    );
  }

  /** The replay of an ended, recorded room whose archive upload finished; null otherwise. */
  async replay(durbarId: string): Promise<DurbarReplayRow | null> {
    const rows: DurbarReplayRow[] = await this.ds.query(
      `SELECT r.url, r.duration_seconds, r.mime_type FROM content.durbar_replay r JOIN content.durbar d ON d.id = r.durbar_id
        WHERE r.durbar_id = $1 AND r.upload_status = 'ready' AND d.status = 'ended' AND d.is_recorded`,
      [durbarId],
    );
    return rows[0] ?? null;
  }

  /**
   * The completed transcript of a recorded room, or null. A transcript exists only once completed, with its
   * completion time: a row marked completed without `completed_at` is not one (the schema requires the time).
   */
  async transcript(durbarId: string): Promise<DurbarTranscriptRow | null> {
    const rows: DurbarTranscriptRow[] = await this.ds.query(
      `SELECT t.language, t.duration_seconds, t.completed_at FROM content.durbar_transcript t JOIN content.durbar d ON d.id = t.durbar_id
        WHERE t.durbar_id = $1 AND t.status = 'completed' AND t.completed_at IS NOT NULL AND d.is_recorded`,
      [durbarId],
    );
    return rows[0] ?? null;
  }

  /** Segments not flagged by moderation, in time order; the speaker column is never selected. */
  segments(durbarId: string): Promise<TranscriptSegmentRow[]> {
    return this.ds.query(
      `SELECT start_ms, end_ms, text, lang, confidence FROM content.durbar_transcript_segment
        WHERE durbar_id = $1 AND NOT flagged ORDER BY start_ms, id`,
      [durbarId],
    );
  }
}
