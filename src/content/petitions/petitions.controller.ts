import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import {
  PetitionDetailResponse,
  PetitionResponse,
  toPetitionDetailResponse,
  toPetitionResponse,
} from './dto/petition.response';
import { PetitionsQuery } from './dto/petitions.query';
import { PetitionsRepository } from './petitions.repository';
import { ChangesWith, ChangesWithClock } from '../platform/content-versions';

@ChangesWith('petition', 'signature')
@PublicController('petitions', 'Petitions')
export class PetitionsController {
  constructor(
    private readonly repo: PetitionsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Active petitions, newest first', operationId: 'listPetitions' })
  @ApiOkResponse({ type: PublicPageOf(PetitionResponse) })
  list(@Query() q: PetitionsQuery): Promise<PublicPage<PetitionResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ category: q.category, country: q.country }, limit, offset),
      toPetitionResponse,
    );
  }

  // Momentum counts the last 7 days from the time of the request.
  @ChangesWithClock()
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
    return toPetitionDetailResponse(row, await this.repo.signaturesSince(row.id, since));
  }
}
