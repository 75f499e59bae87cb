import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { countryName } from '../common/countries';
import { sanitize } from '../common/sanitize';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { CampaignRow, CampaignsRepository } from './campaigns.repository';
import { CampaignDetailResponse, CampaignResponse } from './dto/campaign.response';
import { CategoryCountryQuery } from './dto/campaigns.query';
import { PublicController } from '../openapi/public-controller';
import { iso, isoOrNull } from '../common/iso';

const percent = (part: number, whole: number | null) =>
  whole ? Math.round((part / whole) * 10_000) / 100 : 0;

export function toCampaignResponse(r: CampaignRow): CampaignResponse {
  const goal = Number(r.goal_amount);
  const raised = Number(r.raised_amount);
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    category: r.category,
    status: r.status,
    goal_amount: goal,
    raised_amount: raised,
    image_url: r.image_url,
    country: r.country,
    target_country: r.target_country,
    target_country_name: countryName(r.target_country),
    progress: { raised_amount: raised, goal_amount: goal, percent: percent(raised, goal) },
    goal_reached_at: isoOrNull(r.goal_reached_at),
    deadline: isoOrNull(r.deadline),
    created_at: iso(r.created_at),
  };
}

@PublicController('campaigns', 'Campaigns')
export class CampaignsController {
  constructor(private readonly repo: CampaignsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Active and won campaigns, newest first', operationId: 'listCampaigns' })
  @ApiOkResponse({ type: PublicPageOf(CampaignResponse) })
  async list(@Query() q: CategoryCountryQuery): Promise<PublicPage<CampaignResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list({ category: q.category, country: q.country }, limit, offset);
    return { data: rows.map(toCampaignResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A campaign with its updates; 404 unless active or won',
    operationId: 'getCampaign',
  })
  @ApiOkResponse({ type: CampaignDetailResponse })
  async get(@Param('slug') slug: string): Promise<CampaignDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Campaign ${slug}`);
    const updates = await this.repo.updates(row.id);
    return {
      ...toCampaignResponse(row),
      updates: updates.map((u) => ({
        id: u.id,
        title: u.title,
        content: sanitize(u.content_html),
        media_urls: u.media_urls,
        created_at: iso(u.created_at),
      })),
    };
  }
}
