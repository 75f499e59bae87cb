import { ApiProperty } from '@nestjs/swagger';
import { detailResponse } from '../../common/detail-response';
import { iso, isoOrNull } from '../../../common/iso';
import type { EventBlockRow, EventRow, TicketTierRow } from '../events.repository';

export class PublicEventResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ example: 'conference' }) event_type: string;
  @ApiProperty({ type: String, nullable: true }) category: string | null;
  @ApiProperty({ format: 'date-time' }) start_date: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) end_date: string | null;
  @ApiProperty({ description: 'IANA time zone', example: 'Africa/Accra' }) timezone: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty() is_online: boolean;
  @ApiProperty({ type: String, nullable: true }) image_url: string | null;
  @ApiProperty() is_paid: boolean;
  @ApiProperty({ example: 'GHS' }) currency: string;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty() is_featured: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AgendaItemResponse {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) starts_at: string | null;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class EventSpeakerResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true, description: 'Role or affiliation' }) title: string | null;
  @ApiProperty({ type: String, nullable: true }) photo_url: string | null;
}

export class EventSponsorResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) logo_url: string | null;
  @ApiProperty({ type: String, nullable: true }) url: string | null;
}

export class GalleryItemResponse {
  @ApiProperty() image_url: string;
  @ApiProperty({ type: String, nullable: true }) caption: string | null;
}

export class TicketTierResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({
    description: 'Price in the minor unit of `currency` (original name, kept for compatibility)',
  })
  price_pesewas: number;
  @ApiProperty({
    required: false,
    description:
      'The same number as `price_pesewas`; always present. New integrations should use this field.',
  })
  price_minor: number;
  @ApiProperty() currency: string;
  @ApiProperty({ description: 'Tickets left and on sale' }) is_available: boolean;
}

export class PublicEventDetailResponse extends PublicEventResponse {
  @ApiProperty({ type: [AgendaItemResponse] }) agenda: AgendaItemResponse[];
  @ApiProperty({ type: [EventSpeakerResponse] }) speakers: EventSpeakerResponse[];
  @ApiProperty({ type: [EventSponsorResponse] }) sponsors: EventSponsorResponse[];
  @ApiProperty({ type: [GalleryItemResponse] }) gallery: GalleryItemResponse[];
  @ApiProperty({ type: [TicketTierResponse], description: 'Empty for free events' })
  ticket_tiers: TicketTierResponse[];
}

export function toEventResponse(r: EventRow): PublicEventResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    event_type: r.event_type,
    category: r.category,
    start_date: iso(r.start_date),
    end_date: isoOrNull(r.end_date),
    timezone: r.timezone,
    location: r.location,
    is_online: r.is_online,
    image_url: r.image_url,
    is_paid: r.is_paid,
    currency: r.currency,
    tags: r.tags,
    is_featured: r.is_featured,
    created_at: iso(r.created_at),
  };
}

export function toTicketTierResponse(t: TicketTierRow): TicketTierResponse {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    price_pesewas: t.price_minor,
    price_minor: t.price_minor,
    currency: t.currency,
    is_available: t.is_available,
  };
}

/** A stored string, or null when absent, empty or not a string. */
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/** Content blocks are stored as JSON; only these keys of each kind are public. */
const BLOCKS = {
  agenda: (d: Record<string, unknown>): AgendaItemResponse => ({
    starts_at: str(d.starts_at),
    title: String(d.title ?? ''),
    description: str(d.description),
  }),
  speaker: (d: Record<string, unknown>): EventSpeakerResponse => ({
    name: String(d.name ?? ''),
    title: str(d.title),
    photo_url: str(d.photo_url),
  }),
  sponsor: (d: Record<string, unknown>): EventSponsorResponse => ({
    name: String(d.name ?? ''),
    logo_url: str(d.logo_url),
    url: str(d.url),
  }),
  gallery: (d: Record<string, unknown>): GalleryItemResponse => ({
    image_url: String(d.image_url ?? ''),
    caption: str(d.caption),
  }),
};

/** The blocks of one kind, in stored order, each through its kind's whitelist. */
const blocksOf = <K extends keyof typeof BLOCKS>(blocks: EventBlockRow[], kind: K) =>
  blocks.filter((b) => b.kind === kind).map((b) => BLOCKS[kind](b.data) as ReturnType<(typeof BLOCKS)[K]>);

/** `ticket_tiers` is empty for free events. */
export function toEventDetailResponse(
  r: EventRow,
  tiers: TicketTierRow[],
  blocks: EventBlockRow[],
): PublicEventDetailResponse {
  return detailResponse<PublicEventResponse, PublicEventDetailResponse>(toEventResponse(r), {
    agenda: blocksOf(blocks, 'agenda'),
    speakers: blocksOf(blocks, 'speaker'),
    sponsors: blocksOf(blocks, 'sponsor'),
    gallery: blocksOf(blocks, 'gallery'),
    ticket_tiers: r.is_paid ? tiers.map(toTicketTierResponse) : [],
  });
}
