import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import { likeEscape, PublicQuery } from '../common/public-query';
import type { Timestamp } from '../../common/iso';

export interface ListingRow {
  id: string;
  slug: string | null;
  title: string;
  description: string | null;
  listing_type: string;
  category_slugs: string[];
  price_min: string | null;
  price_max: string | null;
  currency: string;
  location: string | null;
  rating: string | null;
  review_count: number;
  is_verified: boolean;
  is_featured: boolean;
  cover_url: string | null;
  supports_campaign_id: string | null;
  created_at: Timestamp;
}

export interface ListingDetailRow extends ListingRow {
  portfolio_urls: string[];
  languages: string[];
}

export interface ListingPackageRow {
  name: string | null;
  price: string | null;
  currency: string | null;
  description: string | null;
  delivery_days: number | null;
}

export interface MarketplaceCategoryRow {
  id: string;
  slug: string;
  name: string;
  kind: string;
}

/** Provider identity and contact details are never selected; a supported campaign shows only if it is public. */
const COLUMNS = `l.id, l.slug, l.title, l.description, l.listing_type, l.category_slugs, l.price_min_minor::text AS price_min,
  l.price_max_minor::text AS price_max, l.currency, l.location, l.rating::text, l.review_count, l.is_verified, l.is_featured,
  l.cover_url,
  (SELECT c.id FROM content.campaign c WHERE c.id = l.supports_campaign_id AND c.status IN ('active','won')) AS supports_campaign_id,
  l.created_at`;
const PUBLIC = `l.status = 'active'`;

@Injectable()
export class MarketplaceRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { q?: string; listingType?: string; category?: string; location?: string },
    limit: number,
    offset: number,
  ) {
    return new PublicQuery(PUBLIC)
      .filter(f.q, (v) => `l.search @@ websearch_to_tsquery('simple', ${v})`)
      .filter(f.listingType, (v) => `l.listing_type = ${v}`)
      .filter(f.category?.toLowerCase(), (v) => `l.category_slugs @> ARRAY[${v}::text]`)
      .filter(f.location === undefined ? undefined : likeEscape(f.location), (v) => `l.location ILIKE ${v}`)
      .page<ListingRow>(
        this.ds,
        {
          select: COLUMNS,
          from: 'content.listing l',
          orderBy: 'l.is_featured DESC, l.created_at DESC, l.id DESC',
        },
        limit,
        offset,
      );
  }

  async byId(id: string): Promise<ListingDetailRow | null> {
    const rows: ListingDetailRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS}, l.portfolio_urls, l.languages FROM content.listing l WHERE l.id = $1 AND ${PUBLIC}`,
      [id],
    );
    return rows[0] ?? null;
  }

  packages(listingId: string): Promise<ListingPackageRow[]> {
    return preparedText(
      this.ds,
      `SELECT name, price_minor::text AS price, currency, description, delivery_days FROM content.listing_package
        WHERE listing_id = $1 ORDER BY position, id`,
      [listingId],
    );
  }

  categories(): Promise<MarketplaceCategoryRow[]> {
    return preparedText(
      this.ds,
      `SELECT id, slug, name, kind FROM content.marketplace_category ORDER BY kind, position, slug`,
    );
  }
}
