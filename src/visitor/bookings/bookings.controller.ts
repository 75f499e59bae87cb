import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import { BookingsService } from './bookings.service';
import {
  BookingsQuery,
  CancelBookingBody,
  ConfirmBookingBody,
  CreateBookingBody,
  DeclineBookingBody,
  RescheduleBookingBody,
} from './dto/booking.request';
import { BookingResponse } from './dto/booking.response';
import { ApiErrors, ApiExampleShows } from '../platform/doc-decorators';
import { ClaimedWithCommit } from '../platform/idempotency';

@ApiTags('Bookings')
@Controller('v1/bookings')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @Post()
  @Authorize({ scope: 'bookings:write', publishable: true })
  @ClaimedWithCommit()
  @ApiErrors('conflict')
  @ApiOperation({
    summary: 'Book a slot',
    description:
      'Books a free slot: confirmed with a visit at once, or pending until confirmed (confirm_by); `conflict` when the slot is full.',
    operationId: 'createBooking',
  })
  @ApiCreatedResponse({ type: BookingResponse })
  create(@CurrentCaller('visits') c: Caller, @Body() body: CreateBookingBody): Promise<BookingResponse> {
    return this.bookings.create(c, body);
  }

  @Get()
  @Authorize({ scope: 'bookings:read' })
  @ApiOperation({ summary: 'Bookings, oldest first', operationId: 'listBookings' })
  @ApiOkResponse({ type: PageOf(BookingResponse) })
  list(@CurrentCaller('visits') c: Caller, @Query() q: BookingsQuery): Promise<Page<BookingResponse>> {
    return this.bookings.page(c.tenant, q);
  }

  @Get(':booking_id')
  @Authorize({ scope: 'bookings:read' })
  @ApiOperation({ summary: 'One booking', operationId: 'getBooking' })
  @ApiOkResponse({ type: BookingResponse })
  get(@CurrentCaller('visits') c: Caller, @Param('booking_id') id: string): Promise<BookingResponse> {
    return this.bookings.get(c.tenant, id);
  }

  @Post(':booking_id/confirm')
  @HttpCode(200)
  @Authorize({ scope: 'bookings:write' })
  @ApiErrors('invalid_state', 'conflict')
  @ApiExampleShows({ status: 'confirmed' })
  @ApiOperation({
    summary: 'Confirm a pending booking (a visit is created and linked)',
    operationId: 'confirmBooking',
  })
  @ApiOkResponse({ type: BookingResponse })
  confirm(
    @CurrentCaller('visits') c: Caller,
    @Param('booking_id') id: string,
    @Body() _body: ConfirmBookingBody,
  ): Promise<BookingResponse> {
    return this.bookings.act(c.tenant, id, 'confirm');
  }

  @Post(':booking_id/decline')
  @HttpCode(200)
  @Authorize({ scope: 'bookings:write' })
  @ApiErrors('invalid_state', 'conflict')
  @ApiExampleShows({ status: 'declined' })
  @ApiOperation({
    summary: 'Decline a pending booking',
    description: 'The reason reaches the attendee only with share_reason_with_attendee.',
    operationId: 'declineBooking',
  })
  @ApiOkResponse({ type: BookingResponse })
  decline(
    @CurrentCaller('visits') c: Caller,
    @Param('booking_id') id: string,
    @Body() body: DeclineBookingBody,
  ): Promise<BookingResponse> {
    return this.bookings.act(c.tenant, id, 'decline', {
      reason: body?.reason,
      share: body?.share_reason_with_attendee,
    });
  }

  @Post(':booking_id/cancel')
  @HttpCode(200)
  @Authorize({ scope: 'bookings:write' })
  @ApiErrors('invalid_state', 'conflict')
  @ApiExampleShows({ status: 'cancelled' })
  @ApiOperation({
    summary: 'Cancel a confirmed booking (its visit is cancelled)',
    operationId: 'cancelBooking',
  })
  @ApiOkResponse({ type: BookingResponse })
  cancel(
    @CurrentCaller('visits') c: Caller,
    @Param('booking_id') id: string,
    @Body() body: CancelBookingBody,
  ): Promise<BookingResponse> {
    return this.bookings.act(c.tenant, id, 'cancel', { reason: body?.reason });
  }

  @Post(':booking_id/reschedule')
  @HttpCode(200)
  @Authorize({ scope: 'bookings:write' })
  @ApiErrors('invalid_state', 'conflict')
  @ApiOperation({
    summary: 'Reschedule a confirmed booking',
    description:
      'Moves a confirmed booking to another free slot of its type (its visit moves too); `conflict` when full.',
    operationId: 'rescheduleBooking',
  })
  @ApiOkResponse({ type: BookingResponse })
  reschedule(
    @CurrentCaller('visits') c: Caller,
    @Param('booking_id') id: string,
    @Body() body: RescheduleBookingBody,
  ): Promise<BookingResponse> {
    return this.bookings.act(c.tenant, id, 'reschedule', { start: body.start });
  }
}
