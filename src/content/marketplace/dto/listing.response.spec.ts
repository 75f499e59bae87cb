import type { ListingRow } from '../marketplace.repository';
import { toListingDetailResponse, toListingResponse } from './listing.response';

const row: ListingRow = {
  id: 'lst_1',
  slug: null,
  title: 'Catering',
  description: null,
  listing_type: 'service',
  category_slugs: ['food'],
  price_min: '15000',
  price_max: null,
  currency: 'GHS',
  location: null,
  rating: '4.50',
  review_count: 2,
  is_verified: false,
  is_featured: false,
  cover_url: null,
  supports_campaign_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1)),
};

describe('listing response', () => {
  it('numbers selected as text become numbers; null stays null', () => {
    const l = toListingResponse(row);
    expect([l.price_min_pesewas, l.price_max_pesewas, l.rating]).toEqual([15000, null, 4.5]);
    expect(toListingResponse({ ...row, rating: null }).rating).toBeNull();
  });

  it('a detail adds packages, portfolio and languages after the listing fields', () => {
    const d = toListingDetailResponse({ ...row, portfolio_urls: [], languages: ['en'] }, [
      { name: null, price: null, currency: null, description: null, delivery_days: null },
      { name: 'Buffet', price: '250000', currency: 'GHS', description: 'For 50', delivery_days: 3 },
    ]);
    expect(Object.keys(d)).toEqual([
      ...Object.keys(toListingResponse(row)),
      'packages',
      'portfolio_urls',
      'languages',
    ]);
    expect(d.packages.map((p) => p.price_pesewas)).toEqual([null, 250000]);
  });
});
