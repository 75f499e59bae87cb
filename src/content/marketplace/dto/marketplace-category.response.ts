import { ApiProperty } from '@nestjs/swagger';
import type { MarketplaceCategoryRow } from '../marketplace.repository';

export class MarketplaceCategoryResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['service', 'goods'] }) kind: string;
}

export class MarketplaceCategoriesResponse {
  @ApiProperty({ type: [MarketplaceCategoryResponse] }) data: MarketplaceCategoryResponse[];
}

export function toMarketplaceCategoryResponse(c: MarketplaceCategoryRow): MarketplaceCategoryResponse {
  return { id: c.id, slug: c.slug, name: c.name, kind: c.kind };
}
