import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { HazardResponse, toHazardResponse } from './dto/hazard.response';
import { HazardsQuery } from './dto/hazards.query';
import { HazardsRepository } from './hazards.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('safety_hazard')
@PublicController('safety/hazards', 'Safety')
export class HazardsController {
  constructor(private readonly repo: HazardsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Verified and resolved hazards, newest report first', operationId: 'listHazards' })
  @ApiOkResponse({ type: PublicPageOf(HazardResponse) })
  list(@Query() q: HazardsQuery): Promise<PublicPage<HazardResponse>> {
    return publicList(
      q,
      (limit, offset) =>
        this.repo.list(
          { hazardType: q.hazard_type, severity: q.severity, status: q.status, country: q.country },
          limit,
          offset,
        ),
      toHazardResponse,
    );
  }

  @Get(':caseNumber')
  @ApiOperation({ summary: 'A verified or resolved hazard, by case number', operationId: 'getHazard' })
  @ApiOkResponse({ type: HazardResponse })
  async get(@Param('caseNumber') caseNumber: string): Promise<HazardResponse> {
    const row = await this.repo.byCaseNumber(caseNumber);
    if (!row) throw ApiError.notFound(`Hazard ${caseNumber}`);
    return toHazardResponse(row);
  }
}
