import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { PublicController } from '../openapi/public-controller';
import { PublicPage, PublicPageOf, publicList } from '../platform/public-list';
import {
  PublicEventDetailResponse,
  PublicEventResponse,
  toEventDetailResponse,
  toEventResponse,
} from './dto/event.response';
import { EventsQuery } from './dto/events.query';
import { EventFilter, EventsRepository } from './events.repository';
import { ChangesWith, ChangesWithClock } from '../platform/content-versions';

/** Start of a UTC day, and of the day after (the `date_to` bound includes its whole day). */
const dayStart = (d: string, plusDays = 0) => new Date(Date.parse(`${d}T00:00:00Z`) + plusDays * 86_400_000);

/** The repository filter of a list query; dates that are no calendar day or out of order are 400. */
function filterOf(q: EventsQuery): EventFilter {
  if (q.date_from && q.date_to && q.date_from > q.date_to)
    throw ApiError.validation([{ location: 'query.date_to', message: 'must not be before date_from' }]);
  for (const [name, v] of [
    ['date_from', q.date_from],
    ['date_to', q.date_to],
  ] as const)
    if (v && dayStart(v).toISOString().slice(0, 10) !== v)
      throw ApiError.validation([{ location: `query.${name}`, message: 'is not a calendar date' }]);
  return {
    q: q.q?.trim() || undefined,
    eventType: q.event_type,
    category: q.category,
    location: q.location,
    isPaid: q.is_paid,
    isOnline: q.is_online,
    from: q.date_from ? dayStart(q.date_from) : undefined,
    to: q.date_to ? dayStart(q.date_to, 1) : undefined,
  };
}

@ChangesWith('event', 'event_block', 'event_ticket_tier')
@PublicController('events', 'Events')
export class EventsController {
  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Published events, earliest start first', operationId: 'listEvents' })
  @ApiOkResponse({ type: PublicPageOf(PublicEventResponse) })
  list(@Query() q: EventsQuery): Promise<PublicPage<PublicEventResponse>> {
    return publicList(q, (limit, offset) => this.repo.list(filterOf(q), limit, offset), toEventResponse);
  }

  // Ticket availability is decided by the time of the request.
  @ChangesWithClock()
  @Get(':slug')
  @ApiOperation({
    summary: 'One published event',
    description: 'With its blocks and ticket tiers; 404 otherwise.',
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
    return toEventDetailResponse(row, tiers, blocks);
  }
}
