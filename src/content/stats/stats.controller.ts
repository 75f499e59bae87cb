import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import { PublicController } from '../openapi/public-controller';
import { ChangesWithClock } from '../platform/content-versions';
import { StatsResponse, toStatsResponse } from './dto/stats.response';
import { StatsRepository } from './stats.repository';

const TTL_MS = 60_000;

/** Platform totals; computed at most once a minute per process (they are aggregates over everything). */
@ChangesWithClock()
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
      this.cached = { at: now, value: toStatsResponse(await this.repo.totals()) };
    return this.cached.value;
  }
}
