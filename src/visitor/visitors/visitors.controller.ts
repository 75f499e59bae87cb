import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller, CurrentTenant } from '../platform/current';
import type { Tenant } from '../platform/tenant';
import { VisitorResponse } from '../visits/dto/visit.response';
import { VisitorRecordsService } from '../visits/visitor-records.service';
import { VisitorErasure } from './visitor-erasure.service';

@ApiTags('Visits')
@Controller('v1/visitors')
export class VisitorsController {
  constructor(
    private readonly visitors: VisitorRecordsService,
    private readonly erasure: VisitorErasure,
  ) {}

  @Get(':visitor_id')
  @Authorize({ scope: 'visitors:read' })
  @ApiOperation({ summary: 'A visitor record (matched by phone across visits)', operationId: 'getVisitor' })
  @ApiOkResponse({ type: VisitorResponse })
  get(@CurrentCaller('visits') caller: Caller, @Param('visitor_id') id: string): Promise<VisitorResponse> {
    return this.visitors.get(caller, id);
  }

  @Delete(':visitor_id')
  @HttpCode(204)
  @Authorize({ scope: 'visitors:delete' })
  @ApiOperation({
    summary: 'Erase a visitor',
    description:
      "Permanently erases the visitor's personal data everywhere (hidden records too); emits visitor.erased.",
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
    summary: "Erase a booking's attendee",
    description:
      "Erases the attendee's name, phone, e-mail, company, answers and the decline and cancel reasons from this " +
      "booking and from every booking made with the same phone, and from every copy: the bookings' events, the " +
      'messages about them, stored idempotent responses (a retry replays the booking redacted) and webhook ' +
      "receivers' stored answers. No visit, message or event is created. An attendee whose phone belongs to a " +
      'visitor record is that visitor: they are erased as `DELETE /visitors/{visitor_id}` does, with ' +
      '`visitor.erased`. Repeating the request answers 204 again.',
    operationId: 'eraseBookingAttendee',
  })
  @ApiNoContentResponse()
  erase(@CurrentTenant() tenant: Tenant, @Param('booking_id') id: string): Promise<void> {
    return this.erasure.eraseAttendee(tenant, id);
  }
}
