import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { IsPrefixedId } from '../../../common/validation/prefixed-id';
import { ListQuery } from '../../platform/pagination';
import { IsName } from '../../../common/validation/text';

export const DELIVERY_STATUSES = ['received', 'collected', 'returned'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export class CreateDeliveryBody {
  @ApiProperty({ example: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }) @IsString() @IsPrefixedId('site') site_id: string;

  @ApiProperty({
    example: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7',
    description: 'The person the delivery is for (notified)',
  })
  @IsString()
  @IsPrefixedId('person')
  recipient_id: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'DHL' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  carrier?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  tracking_number?: string | null;

  @ApiPropertyOptional({ default: '', example: 'One parcel, 40 × 30 cm' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'An uploaded `delivery_photo` file (`file_…`)',
  })
  @IsOptional()
  @IsString()
  @IsPrefixedId('file')
  photo_file_id?: string | null;

  @ApiPropertyOptional({ format: 'date-time', description: 'Default: now' })
  @IsOptional()
  @IsTimestamp()
  received_at?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The person who took it in (`person_…`)',
  })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  received_by?: string | null;
}

export class CollectDeliveryBody {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The person who collected it (`person_…`); default: the recipient',
  })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  collected_by?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'Name of someone collecting on the recipient’s behalf who is not a person of the organisation',
  })
  @IsOptional()
  @IsName()
  collected_by_name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'An uploaded `signature` file' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('file')
  signature_file_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'An uploaded `delivery_photo` file' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('file')
  photo_file_id?: string | null;
}

export class ReturnDeliveryBody {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Recipient left the company' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string | null;
}

export class DeliveriesQuery extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('site') site_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('person') recipient_id?: string;
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;
  @ApiPropertyOptional({ format: 'date-time', description: 'Received at or after' })
  @IsOptional()
  @IsTimestamp()
  received_from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Received before' })
  @IsOptional()
  @IsTimestamp()
  received_to?: string;
}
