import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential, CurrentScopes, CurrentTenant } from '../platform/current';
import type { Scope } from '../platform/scopes';
import { ListQuery, Page, PageOf } from '../platform/pagination';
import { planGives } from '../platform/plans';
import type { Tenant } from '../platform/tenant';
import {
  CreateWebhookEndpointBody,
  TestWebhookBody,
  UpdateWebhookEndpointBody,
} from './dto/webhook-endpoint.request';
import {
  toWebhookEndpointResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  WebhookTestResultResponse,
} from './dto/webhook-endpoint.response';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { ApiErrors } from '../platform/doc-decorators';

/**
 * Webhook endpoints. Creating, changing, enabling, rotating and test sends need a plan with live webhooks;
 * reading, disabling and deleting stay open when the plan lapsed, so an organisation can always turn them off.
 */
@ApiTags('Webhooks')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description: 'The signing secret (`whsec_…`) is in this response only.',
    operationId: 'createWebhookEndpoint',
  })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretResponse })
  create(
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Body() body: CreateWebhookEndpointBody,
  ): Promise<WebhookEndpointWithSecretResponse> {
    return this.endpoints.create(tenant, body, scopes);
  }

  @Get()
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks', whenPlanLapsed: true })
  @ApiOperation({ summary: 'Endpoints of this mode, oldest first', operationId: 'listWebhookEndpoints' })
  @ApiOkResponse({ type: PageOf(WebhookEndpointResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: ListQuery): Promise<Page<WebhookEndpointResponse>> {
    return this.endpoints.list(tenant, q);
  }

  @Get(':whep_id')
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks', whenPlanLapsed: true })
  @ApiOperation({ summary: 'One endpoint (without its secret)', operationId: 'getWebhookEndpoint' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  async get(@CurrentTenant() tenant: Tenant, @Param('whep_id') id: string): Promise<WebhookEndpointResponse> {
    return toWebhookEndpointResponse(await this.endpoints.get(tenant, id));
  }

  @Patch(':whep_id')
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks', whenPlanLapsed: true })
  @ApiErrors('plan_required')
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description:
      'Change url, description, enabled_events or status (`enabled` re-enables and clears the failing state); without a webhooks plan only `{status: disabled}`.',
    operationId: 'updateWebhookEndpoint',
  })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  update(
    @CurrentCredential() c: Credential,
    @CurrentTenant() tenant: Tenant,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Param('whep_id') id: string,
    @Body() body: UpdateWebhookEndpointBody,
  ): Promise<WebhookEndpointResponse> {
    return this.endpoints.update(tenant, id, body, planGives(c, 'webhooks'), scopes);
  }

  @Delete(':whep_id')
  @HttpCode(204)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks', whenPlanLapsed: true })
  @ApiOperation({
    summary: 'Delete an endpoint; pending deliveries to it end as failed',
    operationId: 'deleteWebhookEndpoint',
  })
  @ApiNoContentResponse()
  async remove(@CurrentTenant() tenant: Tenant, @Param('whep_id') id: string): Promise<void> {
    await this.endpoints.remove(tenant, id);
  }

  @Post(':whep_id/rotate-secret')
  @HttpCode(200)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @ApiOperation({
    summary: "Rotate an endpoint's signing secret",
    description:
      'A new signing secret, returned once; the old one keeps signing alongside it for WEBHOOK_SECRET_OVERLAP_HOURS.',
    operationId: 'rotateWebhookSecret',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretResponse })
  rotate(
    @CurrentTenant() tenant: Tenant,
    @Param('whep_id') id: string,
  ): Promise<WebhookEndpointWithSecretResponse> {
    return this.endpoints.rotateSecret(tenant, id);
  }

  @Post(':whep_id/test')
  @HttpCode(200)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Send a sample event to an endpoint',
    description: 'Sends a signed sample event of a type now and reports what the receiver answered.',
    operationId: 'testWebhookEndpoint',
  })
  @ApiOkResponse({ type: WebhookTestResultResponse })
  test(
    @CurrentTenant() tenant: Tenant,
    @Param('whep_id') id: string,
    @Body() body: TestWebhookBody,
  ): Promise<WebhookTestResultResponse> {
    return this.endpoints.test(tenant, id, body.type);
  }
}
