import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { likeEscape, PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** Public columns of an open job; salaries only when not hidden (decided in SQL). Applications never. */
export interface JobRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  employment_type: string;
  workplace_type: string;
  seniority: string;
  location: string;
  salary_min: string | null;
  salary_max: string | null;
  salary_currency: string;
  salary_period: string;
  salary_hidden: boolean;
  skills: string[];
  application_deadline: Timestamp | null;
  is_featured: boolean;
  published_at: Timestamp;
  created_at: Timestamp;
}

/** The public columns of an employer, built as one JSON object in SQL; contact and billing details never. */
export interface EmployerRow {
  id: string;
  slug: string;
  name: string;
  logo_url: string | null;
  industry: string | null;
  location: string | null;
  is_verified: boolean;
}

export interface JobDetailRow extends JobRow {
  responsibilities: string[];
  requirements: string[];
  benefits: string[];
  employer: EmployerRow;
}

const COLUMNS = `j.id, j.slug, j.title, j.description, j.employment_type, j.workplace_type, j.seniority, j.location,
  CASE WHEN j.salary_hidden THEN NULL ELSE j.salary_min_minor::text END AS salary_min,
  CASE WHEN j.salary_hidden THEN NULL ELSE j.salary_max_minor::text END AS salary_max,
  j.salary_currency, j.salary_period, j.salary_hidden, j.skills, j.application_deadline, j.is_featured, j.published_at, j.created_at`;
const PUBLIC = `j.status = 'open'`;

@Injectable()
export class JobsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: {
      q?: string;
      employmentType?: string;
      workplaceType?: string;
      seniority?: string;
      location?: string;
      category?: string;
    },
    limit: number,
    offset: number,
  ): Promise<PageRows<JobRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.q, (v) => `j.search @@ websearch_to_tsquery('simple', ${v})`)
      .filter(f.employmentType, (v) => `j.employment_type = ${v}`)
      .filter(f.workplaceType, (v) => `j.workplace_type = ${v}`)
      .filter(f.seniority, (v) => `j.seniority = ${v}`)
      .filter(f.location === undefined ? undefined : likeEscape(f.location), (v) => `j.location ILIKE ${v}`)
      .filter(f.category?.toLowerCase(), (v) => `j.category = ${v}`)
      .page<JobRow>(
        this.ds,
        {
          select: COLUMNS,
          from: 'content.job j',
          orderBy: 'j.is_featured DESC, j.published_at DESC, j.id DESC',
        },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<JobDetailRow | null> {
    const rows: JobDetailRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS}, j.responsibilities, j.requirements, j.benefits,
              json_build_object('id', m.id, 'slug', m.slug, 'name', m.name, 'logo_url', m.logo_url, 'industry', m.industry,
                                'location', m.location, 'is_verified', m.is_verified) AS employer
         FROM content.job j JOIN content.employer m ON m.id = j.employer_id
        WHERE j.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }
}
