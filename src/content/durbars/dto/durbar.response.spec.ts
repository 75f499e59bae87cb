import type { DurbarRow } from '../durbars.repository';
import {
  TRANSCRIPT_DISCLAIMER,
  toDurbarDetailResponse,
  toDurbarResponse,
  toDurbarTranscriptResponse,
} from './durbar.response';

const row: DurbarRow = {
  id: 'dur_1',
  slug: 'town-hall',
  title: 'Town hall',
  description: 'Questions to the assembly',
  status: 'ended',
  scheduled_for: null,
  started_at: new Date(Date.UTC(2026, 4, 1, 18)),
  ended_at: new Date(Date.UTC(2026, 4, 1, 19)),
  is_recorded: true,
  language: 'en',
  peak_listener_count: 80,
  total_listeners: 120,
  host_handle: 'assembly',
  host_name: 'The Assembly',
  host_avatar_url: null,
  host_kind: 'government',
  host_verified: true,
  created_at: new Date(Date.UTC(2026, 3, 20)),
};
const transcript = { language: 'en', duration_seconds: 3600, completed_at: new Date(Date.UTC(2026, 4, 2)) };

describe('durbar responses', () => {
  it('nests the host and links to the room', () => {
    const d = toDurbarResponse(row);
    expect(d.host).toEqual({
      handle: 'assembly',
      name: 'The Assembly',
      avatar_url: null,
      kind: 'government',
      verified: true,
    });
    expect(d.url).toBe('/durbars/town-hall');
  });

  it('a detail without a replay says null', () => {
    const d = toDurbarDetailResponse(row, [], null, false);
    expect(Object.keys(d)).toEqual([
      ...Object.keys(toDurbarResponse(row)),
      'speakers',
      'replay',
      'has_transcript',
    ]);
    expect([d.speakers, d.replay, d.has_transcript]).toEqual([[], null, false]);
  });

  it('a transcript rounds confidences to three decimals and averages the raw ones', () => {
    const t = toDurbarTranscriptResponse(row, transcript, [
      { start_ms: 0, end_ms: 900, text: 'Welcome', lang: 'en', confidence: 0.91234 },
      { start_ms: 900, end_ms: 2000, text: 'First question', lang: 'en', confidence: 0.8 },
    ]);
    expect(t.segments.map((s) => s.confidence)).toEqual([0.912, 0.8]);
    expect([t.segment_count, t.mean_confidence]).toEqual([2, 0.856]);
    expect(t.durbar).toEqual({ slug: 'town-hall', title: 'Town hall', url: '/durbars/town-hall' });
    expect(t.disclaimer).toBe(TRANSCRIPT_DISCLAIMER);
  });

  it('a transcript whose segments are all withheld has mean confidence 0', () => {
    const t = toDurbarTranscriptResponse(row, transcript, []);
    expect([t.segment_count, t.mean_confidence, t.segments]).toEqual([0, 0, []]);
  });
});
