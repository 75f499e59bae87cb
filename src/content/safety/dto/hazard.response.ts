import { ApiProperty } from '@nestjs/swagger';
import { iso, isoOrNull } from '../../../common/iso';
import type { HazardRow } from '../hazards.repository';
import { HAZARD_TYPES, SEVERITIES } from './hazards.query';

export class HazardResponse {
  @ApiProperty({ example: 'HZ-2026-000123' }) case_number: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: HAZARD_TYPES }) hazard_type: string;
  @ApiProperty({ enum: SEVERITIES }) severity: string;
  @ApiProperty({ enum: ['verified', 'resolved'] }) status: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ format: 'date-time' }) reported_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at: string | null;
}

export function toHazardResponse(r: HazardRow): HazardResponse {
  return {
    case_number: r.case_number,
    title: r.title,
    description: r.description,
    hazard_type: r.hazard_type,
    severity: r.severity,
    status: r.status,
    location: r.location,
    country: r.country,
    reported_at: iso(r.reported_at),
    resolved_at: isoOrNull(r.resolved_at),
  };
}
