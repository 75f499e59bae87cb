import { ApiProperty } from '@nestjs/swagger';
import { detailResponse } from '../../common/detail-response';
import { iso } from '../../../common/iso';
import type { ListingDetailRow, ListingPackageRow, ListingRow } from '../marketplace.repository';

export class ListingResponse {
  @ApiProperty() id: string;
  @ApiProperty({ type: String, nullable: true }) slug: string | null;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: ['service', 'goods'] }) listing_type: string;
  @ApiProperty({ type: [String] }) category_slugs: string[];
  @ApiProperty({ type: Number, nullable: true, description: 'Minor unit of currency' }) price_min_pesewas:
    number | null;
  @ApiProperty({ type: Number, nullable: true }) price_max_pesewas: number | null;
  @ApiProperty() currency: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty({ type: Number, nullable: true, description: '1 to 5; null without reviews' }) rating:
    number | null;
  @ApiProperty() review_count: number;
  @ApiProperty() is_verified: boolean;
  @ApiProperty() is_featured: boolean;
  @ApiProperty({ type: String, nullable: true }) cover_url: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A public (active or won) campaign this listing supports',
  })
  supports_campaign_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ListingPackageResponse {
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: Number, nullable: true }) price_pesewas: number | null;
  @ApiProperty({ type: String, nullable: true }) currency: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: Number, nullable: true }) delivery_days: number | null;
}

export class ListingDetailResponse extends ListingResponse {
  @ApiProperty({ type: [ListingPackageResponse] }) packages: ListingPackageResponse[];
  @ApiProperty({ type: [String] }) portfolio_urls: string[];
  @ApiProperty({ type: [String] }) languages: string[];
}

/** A number selected as text (bigint, numeric), as a number; null stays null. */
const num = (v: string | null) => (v === null ? null : Number(v));

export function toListingResponse(r: ListingRow): ListingResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    listing_type: r.listing_type,
    category_slugs: r.category_slugs,
    price_min_pesewas: num(r.price_min),
    price_max_pesewas: num(r.price_max),
    currency: r.currency,
    location: r.location,
    rating: num(r.rating),
    review_count: r.review_count,
    is_verified: r.is_verified,
    is_featured: r.is_featured,
    cover_url: r.cover_url,
    supports_campaign_id: r.supports_campaign_id,
    created_at: iso(r.created_at),
  };
}

export function toListingPackageResponse(p: ListingPackageRow): ListingPackageResponse {
  return {
    name: p.name,
    price_pesewas: num(p.price),
    currency: p.currency,
    description: p.description,
    delivery_days: p.delivery_days,
  };
}

export function toListingDetailResponse(
  r: ListingDetailRow,
  packages: ListingPackageRow[],
): ListingDetailResponse {
  return detailResponse<ListingResponse, ListingDetailResponse>(toListingResponse(r), {
    packages: packages.map(toListingPackageResponse),
    portfolio_urls: r.portfolio_urls,
    languages: r.languages,
  });
}
