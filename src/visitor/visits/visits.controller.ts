import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { Authorize, IdempotentPost } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential, CurrentTenant } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { Page, PageOf } from '../platform/pagination';
import { historyCutoff } from '../platform/plans';
import type { Tenant } from '../platform/tenant';
import {
  CancelVisitBody,
  CheckInBody,
  CreateVisitBody,
  DecideVisitBody,
  ResendPassBody,
  UpdateVisitBody,
  VisitsQuery,
} from './dto/visit.request';
import { VisitorResponse, VisitResponse } from './dto/visit.response';
import { VisitAction } from './visit-state-machine';
import type { VisitListRow } from './visits.repository';
import { VisitCaller, VisitsService } from './visits.service';

/** The caller of a visit route: tenant, publishable key, and the live-mode plan-history cutoff. */
function callerOf(c: Credential, now: Date): VisitCaller {
  return {
    tenant: { organisationId: c.organisation.id, livemode: c.livemode },
    publishable: c.publishable,
    hiddenBefore: historyCutoff('visits', c.organisation.plan, c.livemode, c.organisation.overrides, now),
  };
}

@ApiTags('Visits')
@Controller('v1/visits')
export class VisitsController {
  constructor(
    private readonly visits: VisitsService,
    private readonly cursors: CursorCodecProvider,
    private readonly clock: Clock,
  ) {}

  private caller(c: Credential): VisitCaller {
    return callerOf(c, this.clock.now());
  }

  @Post()
  @Authorize({ scope: 'visits:write', publishable: true })
  @IdempotentPost()
  @ApiOperation({
    summary:
      'Invite a visitor (or pre-register, with a publishable key); the visitor is matched by phone and a pass is sent after commit',
    operationId: 'createVisit',
  })
  @ApiCreatedResponse({ type: VisitResponse })
  create(@CurrentCredential() c: Credential, @Body() body: CreateVisitBody): Promise<VisitResponse> {
    return this.visits.create(this.caller(c), body);
  }

  @Get()
  @Authorize({ scope: 'visits:read' })
  @ApiOperation({ summary: 'Visits, oldest first', operationId: 'listVisits' })
  @ApiOkResponse({ type: PageOf(VisitResponse) })
  async list(
    @CurrentCredential() c: Credential,
    @CurrentTenant() tenant: Tenant,
    @Query() q: VisitsQuery,
  ): Promise<Page<VisitResponse>> {
    if (q.expected_from && q.expected_to && Date.parse(q.expected_from) >= Date.parse(q.expected_to))
      throw ApiError.validation([{ location: 'query.expected_to', message: 'must be after expected_from' }]);
    const filter = {
      status: q.status,
      siteId: q.site_id,
      hostId: q.host_id,
      expectedFrom: q.expected_from ? new Date(q.expected_from) : undefined,
      expectedTo: q.expected_to ? new Date(q.expected_to) : undefined,
      updatedSince: q.updated_since ? new Date(q.updated_since) : undefined,
    };
    const caller = this.caller(c);
    // The page and the form that decides which answers it shows are read at the same time.
    let view!: (r: VisitListRow) => VisitResponse;
    return this.cursors.codec.createdPage(
      'visits',
      tenant,
      q,
      async (limit, after) => {
        const [rows, viewer] = await Promise.all([
          this.visits.list(caller, filter, limit + 1, after),
          this.visits.viewer(tenant),
        ]);
        view = viewer;
        return rows;
      },
      (r) => view(r),
    );
  }

  @Get(':visit_id')
  @Authorize({ scope: 'visits:read' })
  @ApiOperation({ summary: 'One visit', operationId: 'getVisit' })
  @ApiOkResponse({ type: VisitResponse })
  get(@CurrentCredential() c: Credential, @Param('visit_id') id: string): Promise<VisitResponse> {
    return this.visits.get(this.caller(c), id);
  }

  @Patch(':visit_id')
  @Authorize({ scope: 'visits:write' })
  @ApiOperation({
    summary: 'Change a visit that has not ended (validated like create); event visit.updated',
    operationId: 'updateVisit',
  })
  @ApiOkResponse({ type: VisitResponse })
  update(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: UpdateVisitBody,
  ): Promise<VisitResponse> {
    return this.visits.update(this.caller(c), id, body);
  }

  private act(c: Credential, id: string, action: VisitAction, extra = {}): Promise<VisitResponse> {
    return this.visits.act(this.caller(c), id, action, extra);
  }

  @Post(':visit_id/check-in')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({
    summary: 'Check in: checked_in, or awaiting_approval when the site requires host approval',
    operationId: 'checkInVisit',
  })
  @ApiOkResponse({ type: VisitResponse })
  checkIn(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: CheckInBody,
  ): Promise<VisitResponse> {
    return this.act(c, id, 'check_in', { passToken: body?.pass });
  }

  @Post(':visit_id/approve')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({ summary: 'Approve a visit awaiting approval (→ checked_in)', operationId: 'approveVisit' })
  @ApiOkResponse({ type: VisitResponse })
  approve(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: DecideVisitBody,
  ): Promise<VisitResponse> {
    return this.act(c, id, 'approve', { decidedBy: body?.decided_by, reason: body?.reason });
  }

  @Post(':visit_id/deny')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({ summary: 'Deny a visit awaiting approval (→ denied)', operationId: 'denyVisit' })
  @ApiOkResponse({ type: VisitResponse })
  deny(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: DecideVisitBody,
  ): Promise<VisitResponse> {
    return this.act(c, id, 'deny', { decidedBy: body?.decided_by, reason: body?.reason });
  }

  @Post(':visit_id/check-out')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({ summary: 'Check out a checked-in visit', operationId: 'checkOutVisit' })
  @ApiOkResponse({ type: VisitResponse })
  checkOut(@CurrentCredential() c: Credential, @Param('visit_id') id: string): Promise<VisitResponse> {
    return this.act(c, id, 'check_out');
  }

  @Post(':visit_id/cancel')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({ summary: 'Cancel an expected visit, with an optional reason', operationId: 'cancelVisit' })
  @ApiOkResponse({ type: VisitResponse })
  cancel(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: CancelVisitBody,
  ): Promise<VisitResponse> {
    return this.act(c, id, 'cancel', { reason: body?.reason });
  }

  @Post(':visit_id/resend-pass')
  @HttpCode(202)
  @Authorize({ scope: 'visits:write' })
  @IdempotentPost()
  @ApiOperation({
    summary: 'Send a new pass (earlier passes stop working); pass.sent follows once it went out',
    operationId: 'resendVisitPass',
  })
  @ApiAcceptedResponse({ type: VisitResponse })
  resendPass(
    @CurrentCredential() c: Credential,
    @Param('visit_id') id: string,
    @Body() body: ResendPassBody,
  ): Promise<VisitResponse> {
    return this.visits.resendPass(this.caller(c), id, body?.pass_channels);
  }
}

@ApiTags('Visits')
@Controller('v1/visitors')
export class VisitorsController {
  constructor(
    private readonly visits: VisitsService,
    private readonly clock: Clock,
  ) {}

  @Get(':visitor_id')
  @Authorize({ scope: 'visitors:read' })
  @ApiOperation({ summary: 'A visitor record (matched by phone across visits)', operationId: 'getVisitor' })
  @ApiOkResponse({ type: VisitorResponse })
  get(@CurrentCredential() c: Credential, @Param('visitor_id') id: string): Promise<VisitorResponse> {
    return this.visits.getVisitor(callerOf(c, this.clock.now()), id);
  }

  @Delete(':visitor_id')
  @HttpCode(204)
  @Authorize({ scope: 'visitors:delete' })
  @ApiOperation({
    summary:
      "Permanently erase the visitor's personal data everywhere (hidden records too); emits visitor.erased",
    operationId: 'eraseVisitor',
  })
  @ApiNoContentResponse()
  async erase(@CurrentTenant() tenant: Tenant, @Param('visitor_id') id: string): Promise<void> {
    await this.visits.eraseVisitor(tenant, id);
  }
}
