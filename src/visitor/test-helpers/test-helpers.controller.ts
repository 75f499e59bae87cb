import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { ApiError } from '../../common/errors/api-error';
import { ClockEventResponse } from '../attendance/dto/attendance.response';
import { AttendanceService } from '../attendance/attendance.service';
import { BookingResponse } from '../bookings/dto/booking.response';
import { BookingsService } from '../bookings/bookings.service';
import { EventResponse } from '../events/dto/event.response';
import { EventsService } from '../events/events.service';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { Caller, CurrentCaller, CurrentCredential, CurrentScopes } from '../platform/current';
import { IsPrefixedId } from '../../common/validation/prefixed-id';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { VisitResponse } from '../visits/dto/visit.response';
import { VisitsService } from '../visits/visits.service';
import { SandboxReset, SandboxResetResponse } from './sandbox-reset.service';
import { ApiErrors } from '../platform/doc-decorators';

export class LateClockInBody {
  @ApiProperty({ example: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7', description: 'A person with a shift' })
  @IsString()
  @IsPrefixedId('person')
  person_id: string;
}

const DESCRIPTION =
  'Test mode only (a live-mode credential gets `forbidden`). Fires now what time would fire later, through the ' +
  'same code as the periodic job, with the same events and webhooks.';

/** Refuses a live-mode credential: test helpers change what time changes, which live data must not fake. */
function testModeOnly(tenant: Tenant): void {
  if (tenant.livemode)
    throw new ApiError(
      'forbidden',
      'Test helpers run in test mode only; this credential is live. Use a test-mode key (svc_sk_test_…).',
    );
}

/**
 * /v1/test-helpers: what time would fire later, now, in test mode (issue 33, docs/decisions.md "Test helpers"):
 * a visit's no-show, a pending booking's expiry, a late clock-in, an event past retention. Each calls the owner's
 * service, which runs the same transition as the periodic job.
 */
@ApiTags('Test helpers')
@Controller('v1/test-helpers')
export class TestHelpersController {
  constructor(
    private readonly visits: VisitsService,
    private readonly bookings: BookingsService,
    private readonly attendance: AttendanceService,
    private readonly events: EventsService,
    private readonly sandbox: SandboxReset,
  ) {}

  @Post('visits/:visit_id/no-show')
  @HttpCode(200)
  @Authorize({ scope: 'visits:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Mark an expected visit as a no-show now',
    description: `${DESCRIPTION} The visit must be \`expected\` (else \`invalid_state\`); event \`visit.no_show\`.`,
    operationId: 'testHelperVisitNoShow',
  })
  @ApiOkResponse({ type: VisitResponse })
  noShow(@CurrentCaller('visits') caller: Caller, @Param('visit_id') id: string): Promise<VisitResponse> {
    testModeOnly(caller.tenant);
    return this.visits.markNoShowNow(caller, id);
  }

  @Post('bookings/:booking_id/expire')
  @HttpCode(200)
  @Authorize({ scope: 'bookings:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Expire a pending booking now',
    description: `${DESCRIPTION} The booking must be \`pending\` (else \`invalid_state\`); its slot is freed; event \`booking.expired\`.`,
    operationId: 'testHelperBookingExpire',
  })
  @ApiOkResponse({ type: BookingResponse })
  expire(@CurrentCaller('visits') caller: Caller, @Param('booking_id') id: string): Promise<BookingResponse> {
    testModeOnly(caller.tenant);
    return this.bookings.expireNow(caller.tenant, id);
  }

  @Post('attendance/late-clock-in')
  @HttpCode(200)
  @Authorize({ scope: 'attendance:write' })
  @ApiErrors('invalid_state')
  @ApiOperation({
    summary: 'Record a late clock-in for a person with a shift',
    description: `${DESCRIPTION} On the person's latest shift day whose start plus grace has passed, one minute after the grace, at the shift's site; events \`attendance.clocked_in\` and \`attendance.late\`. Already clocked in that day: \`invalid_state\`.`,
    operationId: 'testHelperLateClockIn',
  })
  @ApiOkResponse({ type: ClockEventResponse })
  lateClockIn(
    @CurrentCaller('visits') caller: Caller,
    @Body() body: LateClockInBody,
  ): Promise<ClockEventResponse> {
    testModeOnly(caller.tenant);
    return this.attendance.recordLateClockIn(caller.tenant, body.person_id);
  }

  @Post('events/:evt_id/age')
  @HttpCode(200)
  @Authorize({ scope: 'webhooks:manage', plan: 'webhooks' })
  @ApiOperation({
    summary: 'Age an event past the retention window',
    description: `${DESCRIPTION} Afterwards the event is not listed, fetched or resent (\`not_found\`), as after 30 days; returns it as it was.`,
    operationId: 'testHelperAgeEvent',
  })
  @ApiOkResponse({ type: EventResponse })
  age(
    @CurrentCaller('visits') caller: Caller,
    @CurrentScopes() scopes: ReadonlySet<Scope>,
    @Param('evt_id') id: string,
  ): Promise<EventResponse> {
    testModeOnly(caller.tenant);
    return this.events.ageOut(caller.tenant, scopes, id);
  }

  @Post('sandbox/reset')
  @HttpCode(200)
  @Authorize({ scope: 'visitors:delete' })
  @ApiOperation({
    summary: "Delete the organisation's test-mode data",
    description:
      'Test mode only (a live-mode credential gets `forbidden`). Deletes the test-mode activity — visits and passes, ' +
      'visitors, bookings, events and their webhook deliveries, messages, deliveries, roll calls, clock events, ' +
      'files, watchlist matches, stored idempotent responses — in one transaction; keeps configuration (sites, ' +
      'people, visit and booking types, forms, shifts, keys, webhook endpoints, watchlist entries) and the audit ' +
      'trail. Audited as `sandbox.reset`. Live data is never touched.',
    operationId: 'testHelperSandboxReset',
  })
  @ApiOkResponse({ type: SandboxResetResponse })
  reset(
    @CurrentCaller('visits') caller: Caller,
    @CurrentCredential() credential: Credential,
    @Req() req: FastifyRequest,
  ): Promise<SandboxResetResponse> {
    testModeOnly(caller.tenant);
    return this.sandbox.reset(
      caller.tenant.organisationId,
      { type: credential.kind, id: credential.id },
      req,
    );
  }
}
