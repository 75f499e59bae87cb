import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BookingTypesService } from '../../visitor/booking-types/booking-types.service';
import { SaveBookingTypeBody } from '../../visitor/booking-types/dto/booking-type.request';
import { BookingTypeResponse } from '../../visitor/booking-types/dto/booking-type.response';
import { Page, PageOf } from '../../visitor/platform/pagination';
import { ConsoleAuth, ConsoleTenant } from '../auth/console-auth';
import type { Tenant } from '../../visitor/platform/tenant';
import { ConsoleModeListQuery, ModeQuery } from '../console-mode';
import { BOOKING_TYPE_EDITORS } from './booking-type-form';

/** Booking types in the console: any signed-in person reads; Owners and Admins create and change (one mode). */
@ApiTags('Console')
@Controller('console/booking-types')
export class ConsoleBookingTypesController {
  constructor(private readonly types: BookingTypesService) {}

  @Get()
  @ConsoleAuth()
  @ApiOperation({ summary: 'Booking types of one mode' })
  @ApiOkResponse({ type: PageOf(BookingTypeResponse) })
  list(@ConsoleTenant() t: Tenant, @Query() q: ConsoleModeListQuery): Promise<Page<BookingTypeResponse>> {
    return this.types.page(t, false, q);
  }

  @Get(':btype_id')
  @ConsoleAuth()
  @ApiOperation({ summary: 'One booking type' })
  @ApiOkResponse({ type: BookingTypeResponse })
  get(
    @ConsoleTenant() t: Tenant,
    @Param('btype_id') id: string,
    @Query() _q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.get(t, id);
  }

  @Post()
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @ApiOperation({
    summary: 'Create a booking type (site, hosts, weekly hours, capacity, confirmation, publishing)',
  })
  @ApiOkResponse({ type: BookingTypeResponse })
  create(
    @ConsoleTenant() t: Tenant,
    @Body() body: SaveBookingTypeBody,
    @Query() _q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.save(t, null, body);
  }

  @Put(':btype_id')
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @ApiOperation({ summary: 'Replace a booking type (existing bookings keep their slots)' })
  @ApiOkResponse({ type: BookingTypeResponse })
  save(
    @ConsoleTenant() t: Tenant,
    @Param('btype_id') id: string,
    @Body() body: SaveBookingTypeBody,
    @Query() _q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.save(t, id, body);
  }
}
