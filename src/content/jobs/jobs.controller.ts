import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import { JobDetailResponse, JobResponse, toJobDetailResponse, toJobResponse } from './dto/job.response';
import { JobsQuery } from './dto/jobs.query';
import { JobsRepository } from './jobs.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('employer', 'job')
@PublicController('jobs', 'Jobs')
export class JobsController {
  constructor(private readonly repo: JobsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Open jobs: featured first, then newest', operationId: 'listJobs' })
  @ApiOkResponse({ type: PublicPageOf(JobResponse) })
  list(@Query() q: JobsQuery): Promise<PublicPage<JobResponse>> {
    return publicList(
      q,
      (limit, offset) =>
        this.repo.list(
          {
            q: q.q?.trim() || undefined,
            employmentType: q.employment_type,
            workplaceType: q.workplace_type,
            seniority: q.seniority,
            location: q.location,
            category: q.category,
          },
          limit,
          offset,
        ),
      toJobResponse,
    );
  }

  @Get(':slug')
  @ApiOperation({ summary: 'An open job with its employer; 404 if closed or unknown', operationId: 'getJob' })
  @ApiOkResponse({ type: JobDetailResponse })
  async get(@Param('slug') slug: string): Promise<JobDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Job ${slug}`);
    return toJobDetailResponse(row);
  }
}
