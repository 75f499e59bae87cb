import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import {
  CloseRollcallBody,
  MarkRollcallBody,
  RollcallsQuery,
  StartRollcallBody,
} from './dto/rollcall.request';
import { RollcallDetailResponse, RollcallResponse } from './dto/rollcall.response';
import { RollcallsService } from './rollcalls.service';
import { ApiErrors, ApiExampleShows } from '../platform/doc-decorators';

@ApiTags('Roll calls')
@Controller('v1/rollcalls')
export class RollcallsController {
  constructor(private readonly rollcalls: RollcallsService) {}

  @Post()
  @Authorize({ scope: 'rollcalls:write' })
  @ApiErrors('conflict')
  @ApiOperation({
    summary: 'Start a roll call',
    description:
      'At a site (`conflict` while one is active there): snapshots checked-in visitors and employees clocked in; event rollcall.started.',
    operationId: 'startRollcall',
  })
  @ApiCreatedResponse({ type: RollcallDetailResponse })
  start(@CurrentTenant() tenant: Tenant, @Body() body: StartRollcallBody): Promise<RollcallDetailResponse> {
    return this.rollcalls.start(tenant, body);
  }

  @Get()
  @Authorize({ scope: 'rollcalls:read' })
  @ApiOperation({ summary: 'Roll calls with their progress, oldest first', operationId: 'listRollcalls' })
  @ApiOkResponse({ type: PageOf(RollcallResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: RollcallsQuery): Promise<Page<RollcallResponse>> {
    return this.rollcalls.page(tenant, q);
  }

  @Get(':rollcall_id')
  @Authorize({ scope: 'rollcalls:read' })
  @ApiOperation({ summary: 'One roll call with its people and progress', operationId: 'getRollcall' })
  @ApiOkResponse({ type: RollcallDetailResponse })
  get(@CurrentTenant() tenant: Tenant, @Param('rollcall_id') id: string): Promise<RollcallDetailResponse> {
    return this.rollcalls.get(tenant, id);
  }

  @Post(':rollcall_id/marks')
  @HttpCode(200)
  @Authorize({ scope: 'rollcalls:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Mark a person in a roll call',
    description:
      'Marks a person of an active roll call safe, missing or needing help; event rollcall.person_marked.',
    operationId: 'markRollcallPerson',
  })
  @ApiOkResponse({ type: RollcallDetailResponse })
  mark(
    @CurrentTenant() tenant: Tenant,
    @Param('rollcall_id') id: string,
    @Body() body: MarkRollcallBody,
  ): Promise<RollcallDetailResponse> {
    return this.rollcalls.mark(tenant, id, body);
  }

  @Post(':rollcall_id/close')
  @HttpCode(200)
  @Authorize({ scope: 'rollcalls:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({ status: 'closed' })
  @ApiOperation({
    summary: 'Close a roll call',
    description: 'Closes an active roll call (`invalid_state` once closed); event rollcall.closed.',
    operationId: 'closeRollcall',
  })
  @ApiOkResponse({ type: RollcallDetailResponse })
  close(
    @CurrentTenant() tenant: Tenant,
    @Param('rollcall_id') id: string,
    @Body() body: CloseRollcallBody,
  ): Promise<RollcallDetailResponse> {
    return this.rollcalls.close(tenant, id, body);
  }
}
