import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import {
  ListingDetailResponse,
  ListingResponse,
  ListingsQuery,
  MarketplaceCategoriesResponse,
} from './marketplace.dto';
import { ListingRow, MarketplaceRepository } from './marketplace.repository';
import { PublicController } from '../openapi/public-controller';
import { iso } from '../common/iso';

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

@PublicController('marketplace', 'Marketplace')
export class MarketplaceController {
  constructor(private readonly repo: MarketplaceRepository) {}

  @Get('services')
  @ApiOperation({
    summary: 'Active listings: featured first, then newest',
    operationId: 'listMarketplaceListings',
  })
  @ApiOkResponse({ type: PublicPageOf(ListingResponse) })
  async list(@Query() q: ListingsQuery): Promise<PublicPage<ListingResponse>> {
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list(
      {
        q: q.q?.trim() || undefined,
        listingType: q.listing_type,
        category: q.category,
        location: q.location,
      },
      limit,
      offset,
    );
    return { data: rows.map(toListingResponse), page, limit, total };
  }

  @Get('services/:id')
  @ApiOperation({
    summary: 'An active listing with packages; no provider contact or identity',
    operationId: 'getMarketplaceListing',
  })
  @ApiOkResponse({ type: ListingDetailResponse })
  async get(@Param('id') id: string): Promise<ListingDetailResponse> {
    const row = await this.repo.byId(id);
    if (!row) throw ApiError.notFound(`Listing ${id}`);
    const packages = await this.repo.packages(row.id);
    return {
      ...toListingResponse(row),
      packages: packages.map((p) => ({
        name: p.name,
        price_pesewas: num(p.price),
        currency: p.currency,
        description: p.description,
        delivery_days: p.delivery_days,
      })),
      portfolio_urls: row.portfolio_urls,
      languages: row.languages,
    };
  }

  @Get('categories')
  @ApiOperation({
    summary: 'Every marketplace category (no paging)',
    operationId: 'listMarketplaceCategories',
  })
  @ApiOkResponse({ type: MarketplaceCategoriesResponse })
  async categories(): Promise<MarketplaceCategoriesResponse> {
    return { data: await this.repo.categories() };
  }
}
