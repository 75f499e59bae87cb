import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import { BookingTypesService } from './booking-types.service';
import { AvailabilityQuery, BookingTypesQuery } from './dto/booking-type.request';
import { AvailabilityResponse, BookingTypeResponse } from './dto/booking-type.response';

/** Booking types and their free slots. A publishable key sees only published, active types. */
@ApiTags('Bookings')
@Controller('v1/booking-types')
export class BookingTypesController {
  constructor(private readonly types: BookingTypesService) {}

  @Get()
  @Authorize({ scope: 'bookings:read', publishable: true })
  @ApiOperation({ summary: 'Booking types, oldest first', operationId: 'listBookingTypes' })
  @ApiOkResponse({ type: PageOf(BookingTypeResponse) })
  list(
    @CurrentCaller('visits') c: Caller,
    @Query() q: BookingTypesQuery,
  ): Promise<Page<BookingTypeResponse>> {
    return this.types.page(c.tenant, c.publishable, q);
  }

  // Not for publishable keys (the spec's list for them leaves it out: `forbidden`); the list gives them each
  // public type with its public_form.
  @Get(':btype_id')
  @Authorize({ scope: 'bookings:read' })
  @ApiOperation({ summary: 'One booking type (not for publishable keys)', operationId: 'getBookingType' })
  @ApiOkResponse({ type: BookingTypeResponse })
  get(@CurrentCaller('visits') c: Caller, @Param('btype_id') id: string): Promise<BookingTypeResponse> {
    return this.types.get(c.tenant, id);
  }

  @Get(':btype_id/availability')
  @Authorize({ scope: 'bookings:read', publishable: true })
  @ApiOperation({
    summary: 'Free slots of a booking type',
    description:
      "Free slots (start, end, places left) of a range of local dates in the site's time zone, at most 31 days.",
    operationId: 'getBookingTypeAvailability',
  })
  @ApiOkResponse({ type: AvailabilityResponse })
  availability(
    @CurrentCaller('visits') c: Caller,
    @Param('btype_id') id: string,
    @Query() q: AvailabilityQuery,
  ): Promise<AvailabilityResponse> {
    return this.types.availability(c.tenant, id, c.publishable, q);
  }
}
