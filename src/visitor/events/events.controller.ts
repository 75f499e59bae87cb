import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { EventsQuery } from './dto/events.query';
import { EventResponse, toEventResponse } from './dto/event.response';
import { EventsService } from './events.service';

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Events of the last 30 days, newest first',
    operationId: 'listEvents',
  })
  @ApiOkResponse({ type: PageOf(EventResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: EventsQuery): Promise<Page<EventResponse>> {
    return this.events.list(tenant, q);
  }

  @Get(':evt_id')
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({ summary: 'One event, exactly as receivers got it', operationId: 'getEvent' })
  @ApiOkResponse({ type: EventResponse })
  async get(@CurrentTenant() tenant: Tenant, @Param('evt_id') id: string): Promise<EventResponse> {
    return toEventResponse(await this.events.find(tenant, id));
  }
}
