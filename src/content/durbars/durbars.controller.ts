import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import {
  DurbarDetailResponse,
  DurbarResponse,
  DurbarTranscriptResponse,
  toDurbarDetailResponse,
  toDurbarResponse,
  toDurbarTranscriptResponse,
} from './dto/durbar.response';
import { DurbarsQuery } from './dto/durbars.query';
import { DurbarsRepository } from './durbars.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('durbar', 'durbar_replay', 'durbar_speaker', 'durbar_transcript', 'durbar_transcript_segment')
@PublicController('durbars', 'Durbars')
export class DurbarsController {
  constructor(private readonly repo: DurbarsRepository) {}

  @Get()
  @ApiOperation({
    summary: 'Public rooms',
    description: 'Live first, then soonest scheduled, then most recent.',
    operationId: 'listDurbars',
  })
  @ApiOkResponse({ type: PublicPageOf(DurbarResponse) })
  list(@Query() q: DurbarsQuery): Promise<PublicPage<DurbarResponse>> {
    return publicList(
      q,
      (limit, offset) =>
        this.repo.list(
          { q: q.q?.trim() || undefined, status: q.status, language: q.language, isRecorded: q.is_recorded },
          limit,
          offset,
        ),
      toDurbarResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'One room',
    description: 'Unlisted rooms too, by slug; cancelled rooms are 404.',
    operationId: 'getDurbar',
  })
  @ApiOkResponse({ type: DurbarDetailResponse })
  async get(@Param('slug') slug: string): Promise<DurbarDetailResponse> {
    const d = await this.repo.detail(slug);
    if (!d) throw ApiError.notFound(`Durbar ${slug}`);
    return toDurbarDetailResponse(d.row, d.speakers, d.replay, d.hasTranscript);
  }

  @Get(':slug/transcript')
  @ApiOperation({
    summary: "A recorded room's machine transcript",
    description: 'Moderated segments are withheld; 404 if there is none yet.',
    operationId: 'getDurbarTranscript',
  })
  @ApiOkResponse({ type: DurbarTranscriptResponse })
  async transcript(@Param('slug') slug: string): Promise<DurbarTranscriptResponse> {
    const d = await this.repo.transcriptOf(slug);
    if (!d) throw ApiError.notFound(`Durbar ${slug}`);
    if (!d.transcript) throw ApiError.notFound(`A transcript of durbar ${slug}`);
    return toDurbarTranscriptResponse(d.row, d.transcript, d.segments);
  }
}
