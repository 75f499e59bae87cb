import { ApiProperty } from '@nestjs/swagger';
import type { RollcallPersonRow, RollcallRow } from '../rollcalls.repository';
import { ROLLCALL_STATUSES } from './rollcall.request';
import { iso, isoOrNull } from '../../../common/iso';

export class RollcallProgressResponse {
  @ApiProperty() total: number;
  @ApiProperty({ description: 'Not marked yet' }) unaccounted: number;
  @ApiProperty() safe: number;
  @ApiProperty() missing: number;
  @ApiProperty() needs_help: number;
}

export class RollcallResponse {
  @ApiProperty({ example: 'rollcall_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() site_id: string;
  @ApiProperty({ enum: ROLLCALL_STATUSES }) status: string;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty({ type: String, nullable: true }) started_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) closed_at: string | null;
  @ApiProperty({ type: String, nullable: true }) closed_by: string | null;
  @ApiProperty({ type: RollcallProgressResponse }) progress: RollcallProgressResponse;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class RollcallPersonResponse {
  @ApiProperty({ description: '`visitor_…` (a checked-in visitor) or `person_…` (an employee clocked in)' })
  subject_id: string;
  @ApiProperty({ enum: ['visitor', 'employee'] }) kind: string;
  @ApiProperty({ type: String, nullable: true, description: 'Name at the start (null once erased)' })
  name: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The visit that had the visitor on site' })
  visit_id: string | null;
  @ApiProperty({ enum: ['unaccounted', 'safe', 'missing', 'needs_help'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) note: string | null;
  @ApiProperty({ type: String, nullable: true }) marked_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) marked_at: string | null;
}

export class RollcallDetailResponse extends RollcallResponse {
  @ApiProperty({ type: [RollcallPersonResponse], description: 'Everyone on site when it started' })
  people: RollcallPersonResponse[];
}

/** A mark as `rollcall.person_marked` carries it (no name: events never hold visitor names). */
export class RollcallMarkResponse {
  @ApiProperty() subject_id: string;
  @ApiProperty({ enum: ['visitor', 'employee'] }) kind: string;
  @ApiProperty({ enum: ['safe', 'missing', 'needs_help'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) marked_by: string | null;
  @ApiProperty({ format: 'date-time' }) marked_at: string;
}

export function toRollcallResponse(r: RollcallRow): RollcallResponse {
  return {
    id: r.id,
    site_id: r.site_id,
    status: r.status,
    started_at: iso(r.started_at),
    started_by: r.started_by,
    closed_at: isoOrNull(r.closed_at),
    closed_by: r.closed_by,
    progress: {
      total: r.total,
      unaccounted: r.unaccounted,
      safe: r.safe,
      missing: r.missing,
      needs_help: r.needs_help,
    },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export const toRollcallPersonResponse = (p: RollcallPersonRow): RollcallPersonResponse => ({
  subject_id: p.subject_id,
  kind: p.kind,
  name: p.name,
  visit_id: p.visit_id,
  status: p.status,
  note: p.note,
  marked_by: p.marked_by,
  marked_at: isoOrNull(p.marked_at),
});

export const toRollcallDetailResponse = (
  r: RollcallRow,
  people: RollcallPersonRow[],
): RollcallDetailResponse => ({
  ...toRollcallResponse(r),
  people: people.map(toRollcallPersonResponse),
});

export const toRollcallMarkResponse = (p: RollcallPersonRow): RollcallMarkResponse => ({
  subject_id: p.subject_id,
  kind: p.kind,
  status: p.status,
  marked_by: p.marked_by,
  // A mark response is made only for a person just marked.
  marked_at: isoOrNull(p.marked_at)!,
});
