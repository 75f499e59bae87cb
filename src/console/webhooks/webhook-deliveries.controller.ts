import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { OperatorOnly } from '../console-access';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { ListQuery, Page, PageOf } from '../../visitor/platform/pagination';
import {
  EventDeliveriesResponse,
  WebhookDeliveryResponse,
  WebhookDeliveryWithAttemptsResponse,
} from '../../visitor/webhooks/dto/delivery.response';
import { WebhookDeliveriesService } from '../../visitor/webhooks/webhook-deliveries.service';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';
import { DeliveriesByEventQuery } from './dto/deliveries-by-event.query';

/** The delivery log of an organisation's endpoints (both modes), for Owners and Admins; one-off retries. */
@ApiTags('Console')
@Controller('console')
@ConsoleAuth('owner', 'admin')
export class ConsoleWebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get('webhook-endpoints/:whep_id/deliveries')
  @ApiOperation({ summary: "An endpoint's deliveries, newest first" })
  @ApiOkResponse({ type: PageOf(WebhookDeliveryResponse) })
  list(
    @CurrentAccount() a: ConsoleCaller,
    @Param('whep_id') id: string,
    @Query() q: ListQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    return this.deliveries.ofEndpoint(a.organisation_id, id, q);
  }

  @Get('webhook-deliveries/:dlv_id')
  @ApiOperation({
    summary: 'One delivery with every attempt (time, status, duration, error, response excerpt)',
  })
  @ApiOkResponse({ type: WebhookDeliveryWithAttemptsResponse })
  get(
    @CurrentAccount() a: ConsoleCaller,
    @Param('dlv_id') id: string,
  ): Promise<WebhookDeliveryWithAttemptsResponse> {
    return this.deliveries.get(a.organisation_id, id);
  }

  @Post('webhook-deliveries/:dlv_id/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attempt a delivery again now (same webhook-id and body)' })
  @ApiOkResponse({ type: WebhookDeliveryResponse })
  retry(@CurrentAccount() a: ConsoleCaller, @Param('dlv_id') id: string): Promise<WebhookDeliveryResponse> {
    return this.deliveries.retry(a.organisation_id, id);
  }
}

/** Support staff (operator token): every delivery of an event, with attempts, across organisations. */
@ApiExcludeController()
@OperatorOnly()
@Controller('console/support')
export class SupportDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get('deliveries')
  async byEvent(@Query() q: DeliveriesByEventQuery): Promise<EventDeliveriesResponse> {
    return { data: await this.deliveries.ofEvent(q.event_id) };
  }
}
