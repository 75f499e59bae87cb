import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { DurbarDetailResponse, DurbarResponse, DurbarsQuery, DurbarTranscriptResponse } from './durbar.dto';
import { DurbarRow, DurbarsRepository } from './durbars.repository';
import { PublicController } from '../openapi/public-controller';
import { iso, isoOrNull } from '../common/iso';

export const TRANSCRIPT_DISCLAIMER =
  'Machine transcription: it may contain errors and carries no speaker attribution. Do not present a line as a quotation from a named person.';

export function toDurbarResponse(r: DurbarRow): DurbarResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    status: r.status,
    scheduled_for: isoOrNull(r.scheduled_for),
    started_at: isoOrNull(r.started_at),
    ended_at: isoOrNull(r.ended_at),
    is_recorded: r.is_recorded,
    language: r.language,
    peak_listener_count: r.peak_listener_count,
    total_listeners: r.total_listeners,
    host: {
      handle: r.host_handle,
      name: r.host_name,
      avatar_url: r.host_avatar_url,
      kind: r.host_kind,
      verified: r.host_verified,
    },
    url: `/durbars/${r.slug}`,
    created_at: iso(r.created_at),
  };
}

@PublicController('durbars', 'Durbars')
export class DurbarsController {
  constructor(private readonly repo: DurbarsRepository) {}

  private async find(slug: string): Promise<DurbarRow> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Durbar ${slug}`);
    return row;
  }

  @Get()
  @ApiOperation({
    summary: 'Public rooms: live first, then soonest scheduled, then most recent',
    operationId: 'listDurbars',
  })
  @ApiOkResponse({ type: PublicPageOf(DurbarResponse) })
  async list(@Query() q: DurbarsQuery): Promise<PublicPage<DurbarResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list(
      { q: q.q?.trim() || undefined, status: q.status, language: q.language, isRecorded: q.is_recorded },
      limit,
      offset,
    );
    return { data: rows.map(toDurbarResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A room (unlisted rooms too, by slug); cancelled rooms are 404',
    operationId: 'getDurbar',
  })
  @ApiOkResponse({ type: DurbarDetailResponse })
  async get(@Param('slug') slug: string): Promise<DurbarDetailResponse> {
    const row = await this.find(slug);
    const [speakers, replay, transcript] = await Promise.all([
      this.repo.speakers(row.id),
      this.repo.replay(row.id),
      this.repo.transcript(row.id),
    ]);
    return { ...toDurbarResponse(row), speakers, replay, has_transcript: transcript !== null };
  }

  @Get(':slug/transcript')
  @ApiOperation({
    summary: 'The machine transcript of a recorded room; moderated segments withheld; 404 if none yet',
    operationId: 'getDurbarTranscript',
  })
  @ApiOkResponse({ type: DurbarTranscriptResponse })
  async transcript(@Param('slug') slug: string): Promise<DurbarTranscriptResponse> {
    const row = await this.find(slug);
    const t = await this.repo.transcript(row.id);
    if (!t) throw ApiError.notFound(`A transcript of durbar ${slug}`);
    const segments = await this.repo.segments(row.id);
    const mean = segments.length ? segments.reduce((a, s) => a + s.confidence, 0) / segments.length : 0;
    return {
      durbar: { slug: row.slug, title: row.title, url: `/durbars/${row.slug}` },
      language: t.language,
      duration_seconds: t.duration_seconds,
      segment_count: segments.length,
      mean_confidence: Math.round(mean * 1000) / 1000,
      completed_at: iso(t.completed_at),
      disclaimer: TRANSCRIPT_DISCLAIMER,
      segments: segments.map((s) => ({ ...s, confidence: Math.round(s.confidence * 1000) / 1000 })),
    };
  }
}
