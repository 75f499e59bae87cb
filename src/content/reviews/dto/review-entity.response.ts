import { ApiProperty } from '@nestjs/swagger';
import { iso } from '../../../common/iso';
import type { ReviewEntityRow } from '../review-entities.repository';

export class ReviewEntityResponse {
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'business' }) kind: string;
  @ApiProperty() category: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Mean stars, 1 to 5; null without reviews' })
  rating: number | null;
  @ApiProperty() review_count: number;
  @ApiProperty() is_claimed: boolean;
  @ApiProperty() is_verified: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toReviewEntityResponse(r: ReviewEntityRow): ReviewEntityResponse {
  return {
    slug: r.slug,
    name: r.name,
    kind: r.kind,
    category: r.category,
    location: r.location,
    country: r.country,
    rating: r.rating,
    review_count: r.review_count,
    is_claimed: r.is_claimed,
    is_verified: r.is_verified,
    created_at: iso(r.created_at),
  };
}
