import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentScopes, CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { EventsQuery } from './dto/events.query';
import { EventResponse, toEventResponse } from './dto/event.response';
import { EventsService } from './events.service';
import { eventReadScopesText } from './event-types';

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Events of the last 30 days, newest first',
    description: `Only events of the types the credential may read: each type also needs the read scope of its object's own endpoint, ${eventReadScopesText()}. Events of other types are left out of the list (a \`type\` filter naming one gives an empty list).`,
    operationId: 'listEvents',
  })
  @ApiOkResponse({ type: PageOf(EventResponse) })
  list(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Query() q: EventsQuery,
  ): Promise<Page<EventResponse>> {
    return this.events.list(tenant, scopes, q);
  }

  @Get(':evt_id')
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({
    summary: 'One event, exactly as receivers got it',
    description:
      'An event whose type needs a read scope the credential lacks (see listEvents) is `not_found`, as an object the credential cannot see.',
    operationId: 'getEvent',
  })
  @ApiOkResponse({ type: EventResponse })
  async get(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Param('evt_id') id: string,
  ): Promise<EventResponse> {
    return toEventResponse(await this.events.find(tenant, scopes, id));
  }
}
