import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller, CurrentTenant } from '../platform/current';
import type { Tenant } from '../platform/tenant';
import { VisitorResponse } from '../visits/dto/visit.response';
import { VisitsService } from '../visits/visits.service';
import { VisitorErasure } from './visitor-erasure.service';

@ApiTags('Visits')
@Controller('v1/visitors')
export class VisitorsController {
  constructor(
    private readonly visits: VisitsService,
    private readonly erasure: VisitorErasure,
  ) {}

  @Get(':visitor_id')
  @Authorize({ scope: 'visitors:read' })
  @ApiOperation({ summary: 'A visitor record (matched by phone across visits)', operationId: 'getVisitor' })
  @ApiOkResponse({ type: VisitorResponse })
  get(@CurrentCaller('visits') caller: Caller, @Param('visitor_id') id: string): Promise<VisitorResponse> {
    return this.visits.getVisitor(caller, id);
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
  erase(@CurrentTenant() tenant: Tenant, @Param('visitor_id') id: string): Promise<void> {
    return this.erasure.erase(tenant, id);
  }
}

/** Erasure of a booking's attendee: DELETE /v1/bookings/{id}/attendee (the bookings domain sits below erasure). */
@ApiTags('Bookings')
@Controller('v1/bookings')
export class AttendeeErasureController {
  constructor(private readonly erasure: VisitorErasure) {}

  @Delete(':booking_id/attendee')
  @HttpCode(204)
  @Authorize({ scope: 'visitors:delete' })
  @ApiOperation({
    summary:
      "Permanently erase a booking's attendee: the attendee's details, answers and reasons on this booking and " +
      "every booking made with the same phone, with their events, messages, stored responses and receivers' " +
      'answers. Nothing is created or sent. An attendee who has a visitor record (same phone) is that visitor: ' +
      'erased as DELETE /v1/visitors/{visitor_id} (visitor.erased). Repeating it answers 204 again',
    operationId: 'eraseBookingAttendee',
  })
  @ApiNoContentResponse()
  erase(@CurrentTenant() tenant: Tenant, @Param('booking_id') id: string): Promise<void> {
    return this.erasure.eraseAttendee(tenant, id);
  }
}
