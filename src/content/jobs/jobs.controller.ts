import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import { JobDetailResponse, JobResponse } from './dto/job.response';
import { JobsQuery } from './dto/jobs.query';
import { JobRow, JobsRepository } from './jobs.repository';
import { PublicController } from '../openapi/public-controller';
import { iso, isoOrNull } from '../common/iso';

export function toJobResponse(r: JobRow): JobResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    employment_type: r.employment_type,
    workplace_type: r.workplace_type,
    seniority: r.seniority,
    location: r.location,
    salary_min_pesewas: r.salary_min === null ? null : Number(r.salary_min),
    salary_max_pesewas: r.salary_max === null ? null : Number(r.salary_max),
    salary_currency: r.salary_currency,
    salary_period: r.salary_period,
    salary_hidden: r.salary_hidden,
    skills: r.skills,
    application_deadline: isoOrNull(r.application_deadline),
    is_featured: r.is_featured,
    published_at: iso(r.published_at),
    created_at: iso(r.created_at),
  };
}

@PublicController('jobs', 'Jobs')
export class JobsController {
  constructor(private readonly repo: JobsRepository) {}

  @Get()
  @ApiOperation({ summary: 'Open jobs: featured first, then newest', operationId: 'listJobs' })
  @ApiOkResponse({ type: PublicPageOf(JobResponse) })
  async list(@Query() q: JobsQuery): Promise<PublicPage<JobResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list(
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
    );
    return { data: rows.map(toJobResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({ summary: 'An open job with its employer; 404 if closed or unknown', operationId: 'getJob' })
  @ApiOkResponse({ type: JobDetailResponse })
  async get(@Param('slug') slug: string): Promise<JobDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Job ${slug}`);
    return {
      ...toJobResponse(row),
      responsibilities: row.responsibilities,
      requirements: row.requirements,
      benefits: row.benefits,
      employer: row.employer,
    };
  }
}
