import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { Transactions } from '../../database/unit-of-work';
import { Authorize, IdempotentPost } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { EventsQuery, RedeliverBody } from '../webhooks/dto/webhook-endpoint.request';
import { WebhooksRepository } from '../webhooks/webhooks.repository';
import type { EventRow } from './event.entity';
import { EventResponse, RedeliverResponse } from './dto/event.response';
import { EventsService } from './events.service';

const view = (r: EventRow): EventResponse => JSON.parse(r.body) as EventResponse;

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly cursors: CursorCodecProvider,
  ) {}

  private async find(tenant: Tenant, id: string): Promise<EventRow> {
    const row = await this.repo.findEvent(tenant, id);
    if (!row) throw ApiError.notFound(`Event ${id}`);
    return row;
  }

  @Get()
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Events of the last 30 days, newest first',
    operationId: 'listEvents',
  })
  @ApiOkResponse({ type: PageOf(EventResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: EventsQuery): Promise<Page<EventResponse>> {
    if (q.created_after && q.created_before && Date.parse(q.created_after) >= Date.parse(q.created_before))
      throw ApiError.validation([
        { location: 'query.created_before', message: 'must be after created_after' },
      ]);
    const filter = {
      type: q.type,
      createdAfter: q.created_after ? new Date(q.created_after) : undefined,
      createdBefore: q.created_before ? new Date(q.created_before) : undefined,
    };
    return this.cursors.codec.createdPage(
      'events',
      tenant,
      q,
      (limit, before) => this.repo.listEvents(tenant, filter, limit + 1, before),
      view,
    );
  }

  @Get(':evt_id')
  @Authorize({ scope: 'events:read', plan: 'webhooks' })
  @ApiOperation({ summary: 'One event, exactly as receivers got it', operationId: 'getEvent' })
  @ApiOkResponse({ type: EventResponse })
  async get(@CurrentTenant() tenant: Tenant, @Param('evt_id') id: string): Promise<EventResponse> {
    return view(await this.find(tenant, id));
  }

  @Post(':evt_id/redeliver')
  @HttpCode(202)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @IdempotentPost()
  @ApiOperation({
    summary:
      'Replay a stored event (same webhook-id and body) to every enabled endpoint subscribed to its type, or to one endpoint',
    operationId: 'redeliverEvent',
  })
  @ApiAcceptedResponse({ type: RedeliverResponse })
  async redeliver(
    @CurrentTenant() tenant: Tenant,
    @Param('evt_id') id: string,
    @Body() body: RedeliverBody,
  ): Promise<RedeliverResponse> {
    const event = await this.find(tenant, id);
    const deliveries = await this.tx.run(async (uow) => {
      let endpointIds: string[];
      if (body.endpoint_id) {
        const endpoint = await this.repo.findEndpoint(tenant, body.endpoint_id);
        if (!endpoint)
          throw ApiError.validation([
            { location: 'body.endpoint_id', message: `no webhook endpoint ${body.endpoint_id} in this mode` },
          ]);
        if (endpoint.status !== 'enabled')
          throw new ApiError(
            'invalid_state',
            `Webhook endpoint ${endpoint.id} is disabled; enable it first.`,
          );
        endpointIds = [endpoint.id];
      } else {
        endpointIds = (await this.repo.subscribedEndpoints(uow.manager, tenant, event.type)).map((e) => e.id);
      }
      return this.events.fanOut(uow, tenant, event.id, endpointIds);
    });
    return {
      event_id: event.id,
      deliveries: deliveries.map((d) => ({
        id: d.id,
        endpoint_id: d.endpointId,
        status: 'pending' as const,
      })),
    };
  }
}
