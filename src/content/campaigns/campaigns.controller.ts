import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { CampaignsRepository } from './campaigns.repository';
import {
  CampaignDetailResponse,
  CampaignResponse,
  toCampaignDetailResponse,
  toCampaignResponse,
} from './dto/campaign.response';
import { CampaignsQuery } from './dto/campaigns.query';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('campaign', 'campaign_update')
@PublicController('campaigns', 'Campaigns')
export class CampaignsController {
  constructor(private readonly repo: CampaignsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Active and won campaigns, newest first', operationId: 'listCampaigns' })
  @ApiOkResponse({ type: PublicPageOf(CampaignResponse) })
  list(@Query() q: CampaignsQuery): Promise<PublicPage<CampaignResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ category: q.category, country: q.country }, limit, offset),
      toCampaignResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A campaign with its updates; 404 unless active or won',
    operationId: 'getCampaign',
  })
  @ApiOkResponse({ type: CampaignDetailResponse })
  async get(@Param('slug') slug: string): Promise<CampaignDetailResponse> {
    const d = await this.repo.detail(slug);
    if (!d) throw ApiError.notFound(`Campaign ${slug}`);
    return toCampaignDetailResponse(d.row, d.updates);
  }
}
