import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a reviewed entity: aggregates only, never an individual review. */
export interface ReviewEntityRow {
  slug: string;
  name: string;
  kind: string;
  category: string;
  location: string | null;
  country: string | null;
  rating: number | null;
  review_count: number;
  is_claimed: boolean;
  is_verified: boolean;
  created_at: Timestamp;
}

const COLUMNS = `e.slug, e.name, e.kind, e.category, e.location, e.country, e.rating::float8 AS rating, e.review_count, e.is_claimed,
  e.is_verified, e.created_at`;
const PUBLIC = `e.status = 'published'`;

@Injectable()
export class ReviewEntitiesRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { kind?: string; category?: string; country?: string },
    limit: number,
    offset: number,
  ): Promise<PageRows<ReviewEntityRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.kind, (v) => `e.kind = ${v}`)
      .filter(f.category?.toLowerCase(), (v) => `e.category = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `e.country = ${v}`)
      .page<ReviewEntityRow>(
        this.ds,
        { select: COLUMNS, from: 'content.review_entity e', orderBy: 'e.review_count DESC, e.slug' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<ReviewEntityRow | null> {
    const rows: ReviewEntityRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.review_entity e WHERE e.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }
}
