import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { BookingTypesService } from '../../visitor/booking-types/booking-types.service';
import { SaveBookingTypeBody } from '../../visitor/booking-types/dto/booking-type.request';
import { BookingTypeResponse } from '../../visitor/booking-types/dto/booking-type.response';
import { Page, PageOf } from '../../visitor/platform/pagination';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';
import { ConsoleModeListQuery, ModeQuery, tenantOf } from '../console-mode';

/** Booking types in the console: any signed-in person reads; Owners and Admins create and change (one mode). */
@ApiTags('Console')
@Controller('console/booking-types')
export class ConsoleBookingTypesController {
  constructor(private readonly types: BookingTypesService) {}

  @Get()
  @ConsoleAuth()
  @ApiOperation({ summary: 'Booking types of one mode' })
  @ApiOkResponse({ type: PageOf(BookingTypeResponse) })
  list(
    @CurrentAccount() a: ConsoleCaller,
    @Query() q: ConsoleModeListQuery,
  ): Promise<Page<BookingTypeResponse>> {
    return this.types.page(tenantOf(a, q), false, q);
  }

  @Get(':btype_id')
  @ConsoleAuth()
  @ApiOperation({ summary: 'One booking type' })
  @ApiOkResponse({ type: BookingTypeResponse })
  get(
    @CurrentAccount() a: ConsoleCaller,
    @Param('btype_id') id: string,
    @Query() q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.get(tenantOf(a, q), id);
  }

  @Post()
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Create a booking type (site, hosts, weekly hours, capacity, confirmation, publishing)',
  })
  @ApiOkResponse({ type: BookingTypeResponse })
  create(
    @CurrentAccount() a: ConsoleCaller,
    @Body() body: SaveBookingTypeBody,
    @Query() q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.save(tenantOf(a, q), null, body);
  }

  @Put(':btype_id')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Replace a booking type (existing bookings keep their slots)' })
  @ApiOkResponse({ type: BookingTypeResponse })
  save(
    @CurrentAccount() a: ConsoleCaller,
    @Param('btype_id') id: string,
    @Body() body: SaveBookingTypeBody,
    @Query() q: ModeQuery,
  ): Promise<BookingTypeResponse> {
    return this.types.save(tenantOf(a, q), id, body);
  }
}
