import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PublicListQuery } from '../platform/public-list';

export class ListingsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over title, description and location' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
  @ApiPropertyOptional({ enum: ['service', 'goods'] })
  @IsOptional()
  @IsIn(['service', 'goods'], { message: 'must be service or goods' })
  listing_type?: string;
  @ApiPropertyOptional({ description: 'Category slug' })
  @IsOptional()
  @Matches(/^[a-z0-9-]{1,100}$/, { message: 'must be a category slug' })
  category?: string;
  @ApiPropertyOptional({ description: 'Substring of the location, any case' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  location?: string;
}

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

export class MarketplaceCategoryResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['service', 'goods'] }) kind: string;
}

export class MarketplaceCategoriesResponse {
  @ApiProperty({ type: [MarketplaceCategoryResponse] }) data: MarketplaceCategoryResponse[];
}
