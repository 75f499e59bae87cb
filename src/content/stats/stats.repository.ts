import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';

/** The one row of platform totals. */
export interface StatsRow {
  total_active_campaigns: number;
  total_campaigns: number;
  countries_reached: number;
  total_funds_raised: number;
  total_signatures: number;
}

/** Platform-wide totals over public content only; no per-person data. */
@Injectable()
export class StatsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  async totals(): Promise<StatsRow> {
    const rows: StatsRow[] = await preparedText(
      this.ds,
      `SELECT
         (SELECT count(*)::int FROM content.campaign WHERE status = 'active') AS total_active_campaigns,
         (SELECT count(*)::int FROM content.campaign WHERE status IN ('active', 'won')) AS total_campaigns,
         (SELECT count(DISTINCT cc)::int FROM (
            SELECT target_country AS cc FROM content.campaign WHERE status IN ('active', 'won') AND target_country IS NOT NULL
            UNION SELECT target_country FROM content.petition WHERE status = 'active' AND target_country IS NOT NULL) x
         ) AS countries_reached,
         (SELECT COALESCE(sum(raised_amount), 0)::float8 FROM content.campaign WHERE status IN ('active', 'won')) AS total_funds_raised,
         (SELECT COALESCE(sum(signatures_count), 0)::int FROM content.petition WHERE status = 'active') AS total_signatures`,
    );
    return rows[0];
  }
}
