import { ApiProperty } from '@nestjs/swagger';
import { SEVERITIES } from './watchlist.request';
import type { WatchlistEntryRow, WatchlistMatchRow } from '../watchlist.repository';
import { iso, isoOrNull } from '../../../common/iso';

export class WatchlistEntryResponse {
  @ApiProperty({ example: 'watch_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ type: String, nullable: true, example: '+233244123456', description: 'E.164' })
  phone: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) company: string | null;
  @ApiProperty() reason: string;
  @ApiProperty({ enum: SEVERITIES }) severity: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ description: 'false once expires_at has passed (an expired entry matches nothing)' })
  active: boolean;
  @ApiProperty({ description: 'The API key (`key_…`) or console account that added the entry' })
  created_by: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function toWatchlistEntryResponse(e: WatchlistEntryRow, now: Date): WatchlistEntryResponse {
  return {
    id: e.id,
    name: e.name,
    aliases: e.aliases,
    phone: e.phone,
    email: e.email,
    company: e.company,
    reason: e.reason,
    severity: e.severity,
    expires_at: isoOrNull(e.expires_at),
    active: e.expires_at === null || new Date(e.expires_at).getTime() > now.getTime(),
    created_by: e.created_by,
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

/** One match, as the visit's flag lists it. */
export class WatchlistMatchSummary {
  @ApiProperty({ example: 'wlm_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ example: 'watch_3kT9qLm4Rx7Vd2Wn8YsBc1' }) entry_id: string;
  @ApiProperty({ enum: SEVERITIES }) severity: string;
  @ApiProperty({ enum: ['phone', 'email', 'name'], description: 'Which field of the visitor matched' })
  field: string;
  @ApiProperty({
    description:
      '1 for phone and e-mail; for names the mean weight of the rules the words matched by (exact 1, transliteration 0.97, joined 0.95, variant 0.9, spelling 0.8, initial 0.7), times 0.9 when words were omitted',
  })
  score: number;
  @ApiProperty({
    description:
      "Which rule matched: for names, the entry's name or alias and each of its words with its rule (exact, transliteration, variant, spelling, initial, joined), then the words not given",
    example: "name matches alias 'Kwame Mensah': Kwame initial; Mensah exact",
  })
  explanation: string;
  @ApiProperty({ format: 'date-time' }) matched_at: string;
}

/** `data.object` of `watchlist.matched`: the match, with the visit and visitor it concerns. */
export class WatchlistMatchResponse extends WatchlistMatchSummary {
  @ApiProperty({ enum: ['watchlist_match'] }) object: 'watchlist_match';
  @ApiProperty() visit_id: string;
  @ApiProperty() visitor_id: string;
  @ApiProperty({
    enum: ['visit.created', 'visit.updated', 'visit.check_in'],
    description: 'What ran the screening',
  })
  trigger: string;
}

/** The watchlist flag of a visit (shown only to callers holding watchlist:read; never in events). */
export class VisitWatchlistResponse {
  @ApiProperty({ description: 'true: the visitor matched at least one active entry' }) flagged: boolean;
  @ApiProperty({ enum: SEVERITIES, description: 'The highest severity among the matches' }) severity: string;
  @ApiProperty({ type: [WatchlistMatchSummary] }) matches: WatchlistMatchSummary[];
}

export const toMatchSummary = (m: WatchlistMatchRow): WatchlistMatchSummary => ({
  id: m.id,
  entry_id: m.entry_id,
  severity: m.severity,
  field: m.field,
  score: Number(m.score),
  explanation: m.explanation,
  matched_at: iso(m.created_at),
});

export const toMatchResponse = (m: WatchlistMatchRow): WatchlistMatchResponse => ({
  ...toMatchSummary(m),
  object: 'watchlist_match',
  visit_id: m.visit_id,
  visitor_id: m.visitor_id,
  trigger: m.trigger,
});

/** A match in the list of recent matches (console): the match and the name of its entry, null once removed. */
export interface RecentMatchResponse extends WatchlistMatchResponse {
  entry_name: string | null;
}
