import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { CategoryCountryQuery } from '../campaigns/dto/campaigns.query';
import { countryName } from '../common/countries';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { PetitionDetailResponse, PetitionResponse } from './dto/petition.response';
import { PetitionRow, PetitionsRepository } from './petitions.repository';
import { PublicController } from '../openapi/public-controller';
import { iso } from '../common/iso';

export function toPetitionResponse(r: PetitionRow): PetitionResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    category: r.category,
    status: r.status,
    petition_target: r.petition_target,
    signatures_count: r.signatures_count,
    target_country: r.target_country,
    target_country_name: countryName(r.target_country),
    country: r.country,
    image_url: r.image_url,
    progress: {
      signatures_count: r.signatures_count,
      petition_target: r.petition_target,
      percent: r.petition_target ? Math.round((r.signatures_count / r.petition_target) * 10_000) / 100 : 0,
    },
    created_at: iso(r.created_at),
  };
}

@PublicController('petitions', 'Petitions')
export class PetitionsController {
  constructor(
    private readonly repo: PetitionsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Active petitions, newest first', operationId: 'listPetitions' })
  @ApiOkResponse({ type: PublicPageOf(PetitionResponse) })
  async list(@Query() q: CategoryCountryQuery): Promise<PublicPage<PetitionResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list({ category: q.category, country: q.country }, limit, offset);
    return { data: rows.map(toPetitionResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'An active petition with its momentum; 404 otherwise',
    operationId: 'getPetition',
  })
  @ApiOkResponse({ type: PetitionDetailResponse })
  async get(@Param('slug') slug: string): Promise<PetitionDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Petition ${slug}`);
    const since = new Date(this.clock.now().getTime() - 7 * 86_400_000);
    return {
      ...toPetitionResponse(row),
      momentum: { signatures_last_7_days: await this.repo.signaturesSince(row.id, since) },
    };
  }
}
