import { ApiProperty } from '@nestjs/swagger';
import type { StatsRow } from '../stats.repository';

export class StatsResponse {
  @ApiProperty() total_active_campaigns: number;
  @ApiProperty({ description: 'Public (active and won) campaigns' }) total_campaigns: number;
  @ApiProperty({ description: 'Distinct target countries of public campaigns and petitions' })
  countries_reached: number;
  @ApiProperty({ description: 'Sum of amounts raised by public campaigns, in major units as recorded' })
  total_funds_raised: number;
  @ApiProperty({ description: 'Signatures on active petitions' }) total_signatures: number;
}

export function toStatsResponse(r: StatsRow): StatsResponse {
  return {
    total_active_campaigns: r.total_active_campaigns,
    total_campaigns: r.total_campaigns,
    countries_reached: r.countries_reached,
    total_funds_raised: r.total_funds_raised,
    total_signatures: r.total_signatures,
  };
}
