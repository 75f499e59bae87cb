import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { pageOf, PublicPage, PublicPageOf } from '../platform/public-list';
import {
  AgendaItemResponse,
  PublicEventDetailResponse,
  PublicEventResponse,
  EventSpeakerResponse,
  EventSponsorResponse,
  GalleryItemResponse,
} from './dto/event.response';
import { EventsQuery } from './dto/events.query';
import { EventRow, EventsRepository } from './events.repository';
import { PublicController } from '../openapi/public-controller';
import { iso, isoOrNull } from '../common/iso';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

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

/** Start of a UTC day, and of the day after (the `date_to` bound includes its whole day). */
const dayStart = (d: string, plusDays = 0) => new Date(Date.parse(`${d}T00:00:00Z`) + plusDays * 86_400_000);

@PublicController('events', 'Events')
export class EventsController {
  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Published events, earliest start first', operationId: 'listEvents' })
  @ApiOkResponse({ type: PublicPageOf(PublicEventResponse) })
  async list(@Query() q: EventsQuery): Promise<PublicPage<PublicEventResponse>> {
    if (q.date_from && q.date_to && q.date_from > q.date_to)
      throw ApiError.validation([{ location: 'query.date_to', message: 'must not be before date_from' }]);
    for (const [name, v] of [
      ['date_from', q.date_from],
      ['date_to', q.date_to],
    ] as const)
      if (v && dayStart(v).toISOString().slice(0, 10) !== v)
        throw ApiError.validation([{ location: `query.${name}`, message: 'is not a calendar date' }]);
    const { page, limit, offset } = pageOf(q);
    const { rows, total } = await this.repo.list(
      {
        q: q.q?.trim() || undefined,
        eventType: q.event_type,
        category: q.category,
        location: q.location,
        isPaid: q.is_paid,
        isOnline: q.is_online,
        from: q.date_from ? dayStart(q.date_from) : undefined,
        to: q.date_to ? dayStart(q.date_to, 1) : undefined,
      },
      limit,
      offset,
    );
    return { data: rows.map(toEventResponse), page, limit, total };
  }

  @Get(':slug')
  @ApiOperation({
    summary: 'A published event with its blocks and ticket tiers; 404 otherwise',
    operationId: 'getEvent',
  })
  @ApiOkResponse({ type: PublicEventDetailResponse })
  async get(@Param('slug') slug: string): Promise<PublicEventDetailResponse> {
    const row = await this.repo.bySlug(slug);
    if (!row) throw ApiError.notFound(`Event ${slug}`);
    const [tiers, blocks] = await Promise.all([
      this.repo.tiers(row.id, this.clock.now()),
      this.repo.blocks(row.id),
    ]);
    const of = <K extends keyof typeof BLOCKS>(kind: K) =>
      blocks
        .filter((b) => b.kind === kind)
        .map((b) => BLOCKS[kind](b.data) as ReturnType<(typeof BLOCKS)[K]>);
    return {
      ...toEventResponse(row),
      agenda: of('agenda'),
      speakers: of('speaker'),
      sponsors: of('sponsor'),
      gallery: of('gallery'),
      ticket_tiers: row.is_paid
        ? tiers.map((t) => ({
            id: t.id,
            name: t.name,
            description: t.description,
            price_pesewas: t.price_minor,
            price_minor: t.price_minor,
            currency: t.currency,
            is_available: t.is_available,
          }))
        : [],
    };
  }
}
