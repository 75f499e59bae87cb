import type { EventRow, TicketTierRow } from '../events.repository';
import { toEventDetailResponse } from './event.response';

const row = (over: Partial<EventRow> = {}): EventRow => ({
  id: 'evt_1',
  slug: 'tech-summit',
  title: 'Tech summit',
  description: null,
  event_type: 'conference',
  category: null,
  start_date: new Date(Date.UTC(2026, 5, 1, 9)),
  end_date: null,
  timezone: 'Africa/Accra',
  location: 'Accra',
  is_online: false,
  image_url: null,
  is_paid: true,
  currency: 'GHS',
  tags: [],
  is_featured: false,
  created_at: new Date(Date.UTC(2026, 0, 1)),
  ...over,
});
const tier: TicketTierRow = {
  id: 'tier_1',
  name: 'Standard',
  description: null,
  price_minor: 5000,
  currency: 'GHS',
  is_available: true,
};

describe('event detail response', () => {
  it('keeps only the public keys of each stored block; empty or non-string optional values become null', () => {
    const d = toEventDetailResponse(
      row(),
      [],
      [
        { kind: 'agenda', data: { title: 'Opening', starts_at: '', description: 7, secret: 'x' } },
        { kind: 'speaker', data: { name: 'Ama', title: 'CTO', photo_url: null, email: 'ama@example.com' } },
        { kind: 'sponsor', data: { logo_url: 'https://x.test/l.png' } },
        { kind: 'gallery', data: { image_url: 'https://x.test/g.png', caption: '' } },
        { kind: 'unknown', data: { name: 'ignored' } },
      ],
    );
    expect([d.agenda, d.speakers, d.sponsors, d.gallery]).toEqual([
      [{ starts_at: null, title: 'Opening', description: null }],
      [{ name: 'Ama', title: 'CTO', photo_url: null }],
      [{ name: '', logo_url: 'https://x.test/l.png', url: null }],
      [{ image_url: 'https://x.test/g.png', caption: null }],
    ]);
  });

  it('lists ticket tiers of a paid event, the price under both names', () => {
    expect(toEventDetailResponse(row(), [tier], []).ticket_tiers).toEqual([
      {
        id: 'tier_1',
        name: 'Standard',
        description: null,
        price_pesewas: 5000,
        price_minor: 5000,
        currency: 'GHS',
        is_available: true,
      },
    ]);
  });

  it('a free event has no ticket tiers, whatever is stored', () => {
    expect(toEventDetailResponse(row({ is_paid: false }), [tier], []).ticket_tiers).toEqual([]);
  });
});
