import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import {
  CancelVisitBody,
  CheckInBody,
  CreateVisitBody,
  DecideVisitBody,
  ResendPassBody,
  UpdateVisitBody,
  VisitsQuery,
} from './dto/visit.request';
import { VisitResponse } from './dto/visit.response';
import { VisitAction } from './visit-state-machine';
import { VisitsService } from './visits.service';
import { ApiErrors, ApiExampleShows } from '../platform/doc-decorators';
import { ClaimedWithCommit } from '../platform/idempotency';

@ApiTags('Visits')
@Controller('v1/visits')
export class VisitsController {
  constructor(private readonly visits: VisitsService) {}

  @Post()
  @Authorize({ scope: 'visits:write', publishable: true })
  @ClaimedWithCommit()
  @ApiOperation({
    summary: 'Invite or pre-register a visitor',
    description:
      'Invites a visitor (or pre-registers one, with a publishable key); the visitor is matched by phone and a pass is sent after commit.',
    operationId: 'createVisit',
  })
  @ApiCreatedResponse({ type: VisitResponse })
  create(@CurrentCaller('visits') caller: Caller, @Body() body: CreateVisitBody): Promise<VisitResponse> {
    return this.visits.create(caller, body);
  }

  @Get()
  @Authorize({ scope: 'visits:read' })
  @ApiOperation({ summary: 'Visits, oldest first', operationId: 'listVisits' })
  @ApiOkResponse({ type: PageOf(VisitResponse) })
  list(@CurrentCaller('visits') caller: Caller, @Query() q: VisitsQuery): Promise<Page<VisitResponse>> {
    return this.visits.page(caller, q);
  }

  @Get(':visit_id')
  @Authorize({ scope: 'visits:read' })
  @ApiOperation({ summary: 'One visit', operationId: 'getVisit' })
  @ApiOkResponse({ type: VisitResponse })
  get(@CurrentCaller('visits') caller: Caller, @Param('visit_id') id: string): Promise<VisitResponse> {
    return this.visits.get(caller, id);
  }

  @Patch(':visit_id')
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Change a visit',
    description: 'Changes a visit that has not ended, validated like create; event visit.updated.',
    operationId: 'updateVisit',
  })
  @ApiOkResponse({ type: VisitResponse })
  update(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: UpdateVisitBody,
  ): Promise<VisitResponse> {
    return this.visits.update(caller, id, body);
  }

  private act(caller: Caller, id: string, action: VisitAction, extra = {}): Promise<VisitResponse> {
    return this.visits.act(caller, id, action, extra);
  }

  @Post(':visit_id/check-in')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({ status: 'checked_in', checked_in_at: '2026-11-26T09:31:12.000Z' })
  @ApiOperation({
    summary: 'Check in a visit',
    description:
      'The visit becomes `checked_in`, or `awaiting_approval` when the site requires host approval.',
    operationId: 'checkInVisit',
  })
  @ApiOkResponse({ type: VisitResponse })
  checkIn(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: CheckInBody,
  ): Promise<VisitResponse> {
    return this.act(caller, id, 'check_in', { passToken: body?.pass });
  }

  @Post(':visit_id/approve')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({
    status: 'checked_in',
    checked_in_at: '2026-11-26T09:33:40.000Z',
    decision: { outcome: 'approved' },
  })
  @ApiOperation({ summary: 'Approve a visit awaiting approval (→ checked_in)', operationId: 'approveVisit' })
  @ApiOkResponse({ type: VisitResponse })
  approve(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: DecideVisitBody,
  ): Promise<VisitResponse> {
    return this.act(caller, id, 'approve', { decidedBy: body?.decided_by, reason: body?.reason });
  }

  @Post(':visit_id/deny')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({ status: 'denied', decision: { outcome: 'denied' } })
  @ApiOperation({ summary: 'Deny a visit awaiting approval (→ denied)', operationId: 'denyVisit' })
  @ApiOkResponse({ type: VisitResponse })
  deny(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: DecideVisitBody,
  ): Promise<VisitResponse> {
    return this.act(caller, id, 'deny', { decidedBy: body?.decided_by, reason: body?.reason });
  }

  @Post(':visit_id/check-out')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({
    status: 'checked_out',
    checked_in_at: '2026-11-26T09:31:12.000Z',
    checked_out_at: '2026-11-26T11:02:05.000Z',
  })
  @ApiOperation({ summary: 'Check out a checked-in visit', operationId: 'checkOutVisit' })
  @ApiOkResponse({ type: VisitResponse })
  checkOut(@CurrentCaller('visits') caller: Caller, @Param('visit_id') id: string): Promise<VisitResponse> {
    return this.act(caller, id, 'check_out');
  }

  @Post(':visit_id/cancel')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiExampleShows({
    status: 'cancelled',
    cancelled_at: '2026-11-26T08:15:00.000Z',
    cancel_reason: 'Meeting moved online',
  })
  @ApiOperation({
    summary: 'Cancel an expected visit',
    description:
      "With an optional reason. A booking's visit is cancelled with its booking: cancel the booking instead (`invalid_state`).",
    operationId: 'cancelVisit',
  })
  @ApiOkResponse({ type: VisitResponse })
  cancel(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: CancelVisitBody,
  ): Promise<VisitResponse> {
    return this.act(caller, id, 'cancel', { reason: body?.reason });
  }

  @Post(':visit_id/resend-pass')
  @HttpCode(202)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Send a visit a new pass',
    description: 'Earlier passes stop working; pass.sent follows once it went out.',
    operationId: 'resendVisitPass',
  })
  @ApiAcceptedResponse({ type: VisitResponse })
  resendPass(
    @CurrentCaller('visits') caller: Caller,
    @Param('visit_id') id: string,
    @Body() body: ResendPassBody,
  ): Promise<VisitResponse> {
    return this.visits.resendPass(caller, id, body?.pass_channels);
  }
}
