import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import { StatsRepository } from './stats.repository';
import { PublicController } from '../openapi/public-controller';

export class StatsResponse {
  @ApiProperty() total_active_campaigns: number;
  @ApiProperty({ description: 'Public (active and won) campaigns' }) total_campaigns: number;
  @ApiProperty({ description: 'Distinct target countries of public campaigns and petitions' })
  countries_reached: number;
  @ApiProperty({ description: 'Sum of amounts raised by public campaigns, in major units as recorded' })
  total_funds_raised: number;
  @ApiProperty({ description: 'Signatures on active petitions' }) total_signatures: number;
}

const TTL_MS = 60_000;

/** Platform totals; computed at most once a minute per process (they are aggregates over everything). */
@PublicController('stats', 'Stats')
export class StatsController {
  private cached: { at: number; value: StatsResponse } | null = null;

  constructor(
    private readonly repo: StatsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Platform totals (refreshed at most once a minute)', operationId: 'getStats' })
  @ApiOkResponse({ type: StatsResponse })
  async get(): Promise<StatsResponse> {
    const now = this.clock.now().getTime();
    if (!this.cached || now - this.cached.at > TTL_MS)
      this.cached = { at: now, value: await this.repo.totals() };
    return this.cached.value;
  }
}
