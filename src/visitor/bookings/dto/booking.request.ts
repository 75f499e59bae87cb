import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';

import { ListQuery } from '../../platform/pagination';
import { VisitorInput } from '../../visits/dto/visit.request';
import { BOOKING_STATUSES, BookingStatus } from '../booking-state-machine';
import { IsPrefixedId } from '../../../common/validation/prefixed-id';

export class CreateBookingBody {
  @ApiProperty({ example: 'btype_3kT9qLm4Rx7Vd2Wn8YsBc1' })
  @IsString()
  @IsPrefixedId('btype')
  booking_type_id: string;
  @ApiProperty({ format: 'date-time', description: 'Start of a free slot (from availability)' })
  @IsTimestamp()
  start: string;
  @ApiProperty({ type: VisitorInput, description: 'Who comes: becomes the visitor of the confirmed booking' })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => VisitorInput)
  attendee: VisitorInput;
  @ApiPropertyOptional({ description: "One of the type's hosts; default its first" })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  host_id?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "Answers to the visit form; with a publishable key only questions of the type's public_form",
  })
  @IsOptional()
  @IsObject()
  custom_fields?: Record<string, unknown>;
}

export class ConfirmBookingBody {}

export class DeclineBookingBody {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
  @ApiPropertyOptional({ default: false, description: 'Tell the attendee the reason (in their message)' })
  @IsOptional()
  @IsBoolean()
  share_reason_with_attendee?: boolean;
}

export class CancelBookingBody {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class RescheduleBookingBody {
  @ApiProperty({ format: 'date-time', description: 'Start of a free slot of the same booking type' })
  @IsTimestamp()
  start: string;
}

export class BookingsQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only bookings of this type' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('btype')
  booking_type_id?: string;
  @ApiPropertyOptional({ enum: BOOKING_STATUSES })
  @IsOptional()
  @IsIn(BOOKING_STATUSES, { message: `must be one of ${BOOKING_STATUSES.join(', ')}` })
  status?: BookingStatus;
  @ApiPropertyOptional({ format: 'date-time', description: 'Slot starts at or after' })
  @IsOptional()
  @IsTimestamp()
  start_from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Slot starts before' })
  @IsOptional()
  @IsTimestamp()
  start_to?: string;
}
