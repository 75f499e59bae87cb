import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentScopes, CurrentTenant } from '../platform/current';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { RedeliverBody } from './dto/redeliver.request';
import { RedeliverResponse } from './dto/redeliver.response';
import { WebhookFanOut } from './webhook-fan-out';
import { ApiErrors } from '../platform/doc-decorators';

/** POST /v1/events/{id}/redeliver: a webhook action on a stored event, so it lives with webhooks. */
@ApiTags('Events')
@Controller('v1/events')
export class EventRedeliveryController {
  constructor(private readonly fanOut: WebhookFanOut) {}

  @Post(':evt_id/redeliver')
  @HttpCode(202)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Redeliver an event',
    description:
      'Replays a stored event (same webhook-id and body) to every enabled endpoint subscribed to its type, or to one endpoint. ' +
      'A named endpoint must be subscribed to the event\'s type as for the first delivery (`["*"]` does not cover `watchlist.matched`): otherwise `validation_failed` at `body.endpoint_id`. An event whose type needs a read scope the credential lacks (see listEvents) is `not_found`.',
    operationId: 'redeliverEvent',
  })
  @ApiAcceptedResponse({ type: RedeliverResponse })
  redeliver(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Param('evt_id') id: string,
    @Body() body: RedeliverBody,
  ): Promise<RedeliverResponse> {
    return this.fanOut.redeliver(tenant, scopes, id, body.endpoint_id);
  }
}
