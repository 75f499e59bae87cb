import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { DeliveriesService } from './deliveries.service';
import {
  CollectDeliveryBody,
  CreateDeliveryBody,
  DeliveriesQuery,
  ReturnDeliveryBody,
} from './dto/delivery.request';
import { DeliveryResponse } from './dto/delivery.response';
import { ApiErrors, ApiExampleShows } from '../platform/doc-decorators';

@ApiTags('Deliveries')
@Controller('v1/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Post()
  @Authorize({ scope: 'deliveries:write' })
  @ApiOperation({
    summary: 'Record a delivery',
    description: 'For a person, who is notified; event delivery.received.',
    operationId: 'createDelivery',
  })
  @ApiCreatedResponse({ type: DeliveryResponse })
  create(@CurrentTenant() tenant: Tenant, @Body() body: CreateDeliveryBody): Promise<DeliveryResponse> {
    return this.deliveries.create(tenant, body);
  }

  @Get()
  @Authorize({ scope: 'deliveries:read' })
  @ApiOperation({ summary: 'Deliveries, oldest first', operationId: 'listDeliveries' })
  @ApiOkResponse({ type: PageOf(DeliveryResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: DeliveriesQuery): Promise<Page<DeliveryResponse>> {
    return this.deliveries.page(tenant, q);
  }

  @Get(':delivery_id')
  @Authorize({ scope: 'deliveries:read' })
  @ApiOperation({ summary: 'One delivery', operationId: 'getDelivery' })
  @ApiOkResponse({ type: DeliveryResponse })
  get(@CurrentTenant() tenant: Tenant, @Param('delivery_id') id: string): Promise<DeliveryResponse> {
    return this.deliveries.get(tenant, id);
  }

  @Post(':delivery_id/collect')
  @HttpCode(200)
  @Authorize({ scope: 'deliveries:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({ status: 'collected' })
  @ApiOperation({
    summary: 'Mark a delivery collected',
    description: 'A received delivery, once (then `invalid_state`); event delivery.collected.',
    operationId: 'collectDelivery',
  })
  @ApiOkResponse({ type: DeliveryResponse })
  collect(
    @CurrentTenant() tenant: Tenant,
    @Param('delivery_id') id: string,
    @Body() body: CollectDeliveryBody,
  ): Promise<DeliveryResponse> {
    return this.deliveries.collect(tenant, id, body);
  }

  @Post(':delivery_id/return')
  @HttpCode(200)
  @Authorize({ scope: 'deliveries:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({ status: 'returned' })
  @ApiOperation({
    summary: 'Return a delivery to its sender',
    description: 'A received delivery; event delivery.returned.',
    operationId: 'returnDelivery',
  })
  @ApiOkResponse({ type: DeliveryResponse })
  returnToSender(
    @CurrentTenant() tenant: Tenant,
    @Param('delivery_id') id: string,
    @Body() body: ReturnDeliveryBody,
  ): Promise<DeliveryResponse> {
    return this.deliveries.returnToSender(tenant, id, body);
  }
}
