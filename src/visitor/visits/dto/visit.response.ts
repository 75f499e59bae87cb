import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { VisitWatchlistResponse } from '../../watchlist/dto/watchlist.response';
import { VISIT_STATUSES } from '../visit-state-machine';
import type { VisitListRow, VisitorRow, VisitRow } from '../visits.repository';

/** `Date#toISOString` output; list rows already carry their timestamps in it. */
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const iso = (d: Date | string | null) =>
  d === null ? null : typeof d === 'string' && ISO_UTC_MS.test(d) ? d : new Date(d).toISOString();

export class VisitVisitorResponse {
  @ApiProperty({ example: 'visitor_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'null once the visitor was erased',
    example: 'Kofi Boateng',
  })
  name: string | null;
  @ApiProperty({ type: String, nullable: true, example: '+233244123456' }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'kofi@example.com' }) email: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Boateng Logistics' }) company: string | null;
}

export class VisitDecisionResponse {
  @ApiProperty({ enum: ['approved', 'denied'] }) outcome: 'approved' | 'denied';
  @ApiProperty({ format: 'date-time' }) decided_at: string;
  @ApiProperty({ type: String, nullable: true, description: 'person_… who decided, when given' })
  decided_by: string | null;
  @ApiProperty({ type: String, nullable: true }) reason: string | null;
}

export class VisitPassResponse {
  @ApiProperty({ type: [String], example: ['whatsapp', 'sms'], description: 'Channels tried in this order' })
  channels: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_sent_at: string | null;
}

export class VisitResponse {
  @ApiProperty({ example: 'visit_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ enum: VISIT_STATUSES }) status: string;
  @ApiProperty({ example: 'meeting', description: 'Visit type key' }) type: string;
  @ApiProperty({
    enum: ['invitation', 'pre_registration', 'booking'],
    description: 'booking: created when a booking was confirmed (booking_id names it)',
  })
  source: string;
  @ApiProperty({ example: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }) site_id: string;
  @ApiProperty({ type: String, nullable: true, example: 'gate_5Hd9Qw2Lx8Vr3Tk7Nm1Cb4' }) gate_id:
    string | null;
  @ApiProperty({ example: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7', description: 'The person_… the visitor meets' })
  host_id: string;
  @ApiProperty({ type: VisitVisitorResponse }) visitor: VisitVisitorResponse;
  @ApiProperty({ example: 'Quarterly supplier review' }) purpose: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expected_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expected_until: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) checked_in_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) checked_out_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) cancelled_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reason given on cancel' })
  cancel_reason: string | null;
  @ApiProperty({ type: VisitDecisionResponse, nullable: true }) decision: VisitDecisionResponse | null;
  @ApiProperty({ type: String, nullable: true }) booking_id: string | null;
  @ApiProperty({ type: VisitPassResponse }) pass: VisitPassResponse;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Answers to the visit form; sensitive or masked answers are omitted for API keys and apps',
  })
  custom_fields: Record<string, unknown>;
  @ApiPropertyOptional({
    type: VisitWatchlistResponse,
    nullable: true,
    description:
      'Watchlist flag (null: no match). Present only for credentials holding watchlist:read and in the console; never for publishable keys nor in events',
  })
  watchlist?: VisitWatchlistResponse | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** `withWatchlist`: the caller may see watchlist data, so the visit's flag is included. */
export function toVisitResponse(
  v: VisitRow | VisitListRow,
  customFields: Record<string, unknown>,
  withWatchlist = false,
): VisitResponse {
  const view: VisitResponse = {
    id: v.id,
    status: v.status,
    type: v.type,
    source: v.source,
    site_id: v.site_id,
    gate_id: v.gate_id,
    host_id: v.host_id,
    visitor: {
      id: v.visitor_id,
      name: v.visitor_name,
      phone: v.visitor_phone,
      email: v.visitor_email,
      company: v.visitor_company,
    },
    purpose: v.purpose,
    expected_at: iso(v.expected_at),
    expected_until: iso(v.expected_until),
    checked_in_at: iso(v.checked_in_at),
    checked_out_at: iso(v.checked_out_at),
    cancelled_at: iso(v.cancelled_at),
    cancel_reason: v.cancel_reason,
    decision:
      v.decision_outcome && v.decided_at
        ? {
            outcome: v.decision_outcome,
            decided_at: iso(v.decided_at)!,
            decided_by: v.decided_by,
            reason: v.decision_reason,
          }
        : null,
    booking_id: v.booking_id,
    pass: { channels: v.pass_channels, last_sent_at: iso(v.pass_last_sent_at) },
    custom_fields: customFields,
    created_at: iso(v.created_at)!,
    updated_at: iso(v.updated_at)!,
  };
  if (withWatchlist) view.watchlist = v.watchlist ?? null;
  return view;
}

export class VisitorResponse {
  @ApiProperty({ example: 'visitor_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: '+233244123456' }) phone: string;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) company: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the latest visit was created' })
  last_visit_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function toVisitorResponse(r: VisitorRow): VisitorResponse {
  return {
    id: r.id,
    name: r.name ?? '',
    phone: r.phone ?? '',
    email: r.email,
    company: r.company,
    last_visit_at: iso(r.last_visit_at)!,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
