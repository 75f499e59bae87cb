import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../../visitor/platform/pagination';
import { WebhookQueue } from '../../visitor/webhooks/delivery/webhook-queue';
import type { WebhookDeliveryRow } from '../../visitor/webhooks/webhook.entity';
import { WebhooksRepository } from '../../visitor/webhooks/webhooks.repository';
import type { AccountRow } from '../auth/accounts.repository';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';
import { OperatorGuard } from '../operator.guard';
import {
  toAttemptResponse,
  toDeliveryResponse,
  WebhookDeliveryResponse,
  WebhookDeliveryWithAttemptsResponse,
} from './delivery.response';

export class DeliveriesByEventQuery {
  @IsString()
  @Matches(/^evt_[0-9A-Za-z]+$/, { message: 'must be an evt_… id' })
  event_id: string;
}

async function withAttempts(
  repo: WebhooksRepository,
  d: WebhookDeliveryRow,
): Promise<WebhookDeliveryWithAttemptsResponse> {
  return { ...toDeliveryResponse(d), attempts: (await repo.attemptsOf(d.id)).map(toAttemptResponse) };
}

/** The delivery log of an organisation's endpoints (both modes), for Owners and Admins; one-off retries. */
@ApiTags('Console')
@Controller('console')
@ConsoleAuth('owner', 'admin')
export class ConsoleWebhookDeliveriesController {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Get('webhook-endpoints/:whep_id/deliveries')
  @ApiOperation({ summary: "An endpoint's deliveries, newest first" })
  @ApiOkResponse({ type: PageOf(WebhookDeliveryResponse) })
  async list(
    @CurrentAccount() a: AccountRow,
    @Param('whep_id') id: string,
    @Query() q: ListQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const endpoint = await this.repo.endpointOfOrganisation(a.organisation_id, id);
    if (!endpoint) throw ApiError.notFound(`Webhook endpoint ${id}`);
    return this.cursors.codec.createdPage(
      `console-deliveries:${id}`,
      { organisationId: a.organisation_id, livemode: endpoint.livemode },
      q,
      (limit, before) => this.repo.deliveriesOfEndpoint(a.organisation_id, id, limit + 1, before),
      toDeliveryResponse,
    );
  }

  @Get('webhook-deliveries/:dlv_id')
  @ApiOperation({
    summary: 'One delivery with every attempt (time, status, duration, error, response excerpt)',
  })
  @ApiOkResponse({ type: WebhookDeliveryWithAttemptsResponse })
  async get(
    @CurrentAccount() a: AccountRow,
    @Param('dlv_id') id: string,
  ): Promise<WebhookDeliveryWithAttemptsResponse> {
    const d = await this.repo.findDelivery(a.organisation_id, id);
    if (!d) throw ApiError.notFound(`Delivery ${id}`);
    return withAttempts(this.repo, d);
  }

  @Post('webhook-deliveries/:dlv_id/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attempt a delivery again now (same webhook-id and body)' })
  @ApiOkResponse({ type: WebhookDeliveryResponse })
  async retry(
    @CurrentAccount() a: AccountRow,
    @Param('dlv_id') id: string,
  ): Promise<WebhookDeliveryResponse> {
    const d = await this.repo.findDelivery(a.organisation_id, id);
    if (!d) throw ApiError.notFound(`Delivery ${id}`);
    const endpoint = await this.repo.endpointOfOrganisation(a.organisation_id, d.endpointId);
    if (!endpoint || endpoint.deletedAt || endpoint.status !== 'enabled')
      throw new ApiError(
        'invalid_state',
        `The endpoint of delivery ${id} is deleted or disabled; enable it first.`,
      );
    const now = this.clock.now();
    const retried = await this.repo.retryDelivery(id, now);
    if (!retried)
      throw new ApiError('conflict', `Delivery ${id} is being attempted right now; try again shortly.`);
    await this.queue
      .enqueue([{ deliveryId: id, attempt: retried.attemptCount + 1, retryOf: now.getTime() }])
      .catch(() => undefined);
    return toDeliveryResponse(retried);
  }
}

/** Support staff (operator token): every delivery of an event, with attempts, across organisations. */
@ApiExcludeController()
@UseGuards(OperatorGuard)
@Controller('console/support')
export class SupportDeliveriesController {
  constructor(private readonly repo: WebhooksRepository) {}

  @Get('deliveries')
  async byEvent(
    @Query() q: DeliveriesByEventQuery,
  ): Promise<{ data: WebhookDeliveryWithAttemptsResponse[] }> {
    const rows = await this.repo.deliveriesOfEvent(q.event_id);
    return { data: await Promise.all(rows.map((d) => withAttempts(this.repo, d))) };
  }
}
