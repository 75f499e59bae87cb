import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import {
  ListingDetailResponse,
  ListingResponse,
  toListingDetailResponse,
  toListingResponse,
} from './dto/listing.response';
import { ListingsQuery } from './dto/listings.query';
import {
  MarketplaceCategoriesResponse,
  toMarketplaceCategoryResponse,
} from './dto/marketplace-category.response';
import { MarketplaceRepository } from './marketplace.repository';
import { ChangesWith } from '../platform/content-versions';

@ChangesWith('campaign', 'listing', 'listing_package', 'marketplace_category')
@PublicController('marketplace', 'Marketplace')
export class MarketplaceController {
  constructor(private readonly repo: MarketplaceRepository) {}

  @Get('services')
  @ApiOperation({
    summary: 'Active listings: featured first, then newest',
    operationId: 'listMarketplaceListings',
  })
  @ApiOkResponse({ type: PublicPageOf(ListingResponse) })
  list(@Query() q: ListingsQuery): Promise<PublicPage<ListingResponse>> {
    return publicList(
      q,
      (limit, offset) =>
        this.repo.list(
          {
            q: q.q?.trim() || undefined,
            listingType: q.listing_type,
            category: q.category,
            location: q.location,
          },
          limit,
          offset,
        ),
      toListingResponse,
    );
  }

  @Get('services/:id')
  @ApiOperation({
    summary: 'One marketplace listing with its packages',
    description: 'An active listing with its packages; no provider contact or identity.',
    operationId: 'getMarketplaceListing',
  })
  @ApiOkResponse({ type: ListingDetailResponse })
  async get(@Param('id') id: string): Promise<ListingDetailResponse> {
    const row = await this.repo.byId(id);
    if (!row) throw ApiError.notFound(`Listing ${id}`);
    return toListingDetailResponse(row, await this.repo.packages(row.id));
  }

  @Get('categories')
  @ApiOperation({
    summary: 'Every marketplace category (no paging)',
    operationId: 'listMarketplaceCategories',
  })
  @ApiOkResponse({ type: MarketplaceCategoriesResponse })
  async categories(): Promise<MarketplaceCategoriesResponse> {
    return { data: (await this.repo.categories()).map(toMarketplaceCategoryResponse) };
  }
}
