import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { likeEscape, PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** Public columns of an event; organizer, joining link, promo codes, inventory and RSVPs stay inside. */
export interface EventRow {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  event_type: string;
  category: string | null;
  start_date: Timestamp;
  end_date: Timestamp | null;
  timezone: string;
  location: string | null;
  is_online: boolean;
  image_url: string | null;
  is_paid: boolean;
  currency: string;
  tags: string[];
  is_featured: boolean;
  created_at: Timestamp;
}

/** A ticket tier with its availability computed in SQL; inventory and sales are never selected. */
export interface TicketTierRow {
  id: string;
  name: string;
  description: string | null;
  price_minor: number;
  currency: string;
  is_available: boolean;
}

/** A content block (agenda item, speaker, sponsor, gallery item): its kind and its stored JSON. */
export interface EventBlockRow {
  kind: string;
  data: Record<string, unknown>;
}

export interface EventFilter {
  q?: string;
  eventType?: string;
  category?: string;
  location?: string;
  isPaid?: boolean;
  isOnline?: boolean;
  from?: Date;
  to?: Date;
}

const COLUMNS = `e.id, e.slug, e.title, e.description, e.event_type, e.category, e.start_date, e.end_date, e.timezone,
  e.location, e.is_online, e.image_url, e.is_paid, e.currency, e.tags, e.is_featured, e.created_at`;
const PUBLIC = `e.status = 'published'`;

@Injectable()
export class EventsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: EventFilter, limit: number, offset: number): Promise<PageRows<EventRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.q, (v) => `e.search @@ websearch_to_tsquery('simple', ${v})`)
      .filter(f.eventType, (v) => `e.event_type = ${v}`)
      .filter(f.category?.toLowerCase(), (v) => `e.category = ${v}`)
      .filter(f.location === undefined ? undefined : likeEscape(f.location), (v) => `e.location ILIKE ${v}`)
      .filter(f.isPaid, (v) => `e.is_paid = ${v}`)
      .filter(f.isOnline, (v) => `e.is_online = ${v}`)
      .filter(f.from, (v) => `e.start_date >= ${v}`)
      .filter(f.to, (v) => `e.start_date < ${v}`)
      .page<EventRow>(
        this.ds,
        { select: COLUMNS, from: 'content.event e', orderBy: 'e.start_date, e.id' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<EventRow | null> {
    const rows: EventRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.event e WHERE e.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }

  /** Tiers with availability computed here; inventory and sales never leave the query. */
  tiers(eventId: string, now: Date): Promise<TicketTierRow[]> {
    return preparedText(
      this.ds,
      `SELECT id, name, description, price_minor, currency,
              (sold < inventory AND (sales_end IS NULL OR sales_end > $2)) AS is_available
         FROM content.event_ticket_tier WHERE event_id = $1 ORDER BY position, id`,
      [eventId, now],
    );
  }

  blocks(eventId: string): Promise<EventBlockRow[]> {
    return preparedText(
      this.ds,
      `SELECT kind, data FROM content.event_block WHERE event_id = $1 ORDER BY kind, position, id`,
      [eventId],
    );
  }
}
