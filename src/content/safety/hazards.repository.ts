import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a safety hazard; the reporter is never selected. */
export interface HazardRow {
  case_number: string;
  title: string;
  description: string;
  hazard_type: string;
  severity: string;
  status: string;
  location: string | null;
  country: string | null;
  reported_at: Timestamp;
  resolved_at: Timestamp | null;
}

const COLUMNS = `h.case_number, h.title, h.description, h.hazard_type, h.severity, h.status, h.location, h.country, h.reported_at, h.resolved_at`;
/** Only verified and resolved reports are public. */
const PUBLIC = `h.status IN ('verified', 'resolved')`;

@Injectable()
export class HazardsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { hazardType?: string; severity?: string; status?: string; country?: string },
    limit: number,
    offset: number,
  ): Promise<PageRows<HazardRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.hazardType, (v) => `h.hazard_type = ${v}`)
      .filter(f.severity, (v) => `h.severity = ${v}`)
      .filter(f.status, (v) => `h.status = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `h.country = ${v}`)
      .page<HazardRow>(
        this.ds,
        {
          select: COLUMNS,
          from: 'content.safety_hazard h',
          orderBy: 'h.reported_at DESC, h.case_number DESC',
        },
        limit,
        offset,
      );
  }

  async byCaseNumber(caseNumber: string): Promise<HazardRow | null> {
    const rows: HazardRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.safety_hazard h WHERE h.case_number = $1 AND ${PUBLIC}`,
      [caseNumber],
    );
    return rows[0] ?? null;
  }
}
