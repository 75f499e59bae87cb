import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { ActorsRepository } from './actors.repository';
import { ActorResponse, toActorResponse } from './dto/actor.response';
import { ActorsQuery } from './dto/actors.query';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('actor')
@PublicController('actors', 'Actors')
export class ActorsController {
  constructor(private readonly repo: ActorsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Public actors, by handle', operationId: 'listActors' })
  @ApiOkResponse({ type: PublicPageOf(ActorResponse) })
  list(@Query() q: ActorsQuery): Promise<PublicPage<ActorResponse>> {
    return publicList(
      q,
      (limit, offset) => this.repo.list({ kind: q.kind, country: q.country }, limit, offset),
      toActorResponse,
    );
  }

  @Get(':handle')
  @ApiOperation({ summary: 'A public actor', operationId: 'getActor' })
  @ApiOkResponse({ type: ActorResponse })
  async get(@Param('handle') handle: string): Promise<ActorResponse> {
    const row = await this.repo.byHandle(handle);
    if (!row) throw ApiError.notFound(`Actor ${handle}`);
    return toActorResponse(row);
  }
}
