import { ApiProperty } from '@nestjs/swagger';
import { detailResponse } from '../../common/detail-response';
import { iso, isoOrNull } from '../../../common/iso';
import type { JobDetailRow, JobRow } from '../jobs.repository';

export class JobResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'full_time' }) employment_type: string;
  @ApiProperty({ enum: ['onsite', 'hybrid', 'remote'] }) workplace_type: string;
  @ApiProperty({ example: 'mid' }) seniority: string;
  @ApiProperty() location: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Minor unit of salary_currency; null when hidden',
  })
  salary_min_pesewas: number | null;
  @ApiProperty({ type: Number, nullable: true }) salary_max_pesewas: number | null;
  @ApiProperty() salary_currency: string;
  @ApiProperty({ example: 'month' }) salary_period: string;
  @ApiProperty() salary_hidden: boolean;
  @ApiProperty({ type: [String] }) skills: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) application_deadline: string | null;
  @ApiProperty() is_featured: boolean;
  @ApiProperty({ format: 'date-time' }) published_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class EmployerResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) logo_url: string | null;
  @ApiProperty({ type: String, nullable: true }) industry: string | null;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty() is_verified: boolean;
}

export class JobDetailResponse extends JobResponse {
  @ApiProperty({ type: [String] }) responsibilities: string[];
  @ApiProperty({ type: [String] }) requirements: string[];
  @ApiProperty({ type: [String] }) benefits: string[];
  @ApiProperty({ type: EmployerResponse }) employer: EmployerResponse;
}

/** A money amount selected as text (bigint), as a number; null stays null (a hidden salary). */
const minor = (v: string | null) => (v === null ? null : Number(v));

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
    salary_min_pesewas: minor(r.salary_min),
    salary_max_pesewas: minor(r.salary_max),
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

/** `employer` is the JSON object the repository builds, which names each of its public keys. */
export function toJobDetailResponse(r: JobDetailRow): JobDetailResponse {
  return detailResponse<JobResponse, JobDetailResponse>(toJobResponse(r), {
    responsibilities: r.responsibilities,
    requirements: r.requirements,
    benefits: r.benefits,
    employer: r.employer,
  });
}
