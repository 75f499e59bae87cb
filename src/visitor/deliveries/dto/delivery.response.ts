import { ApiProperty } from '@nestjs/swagger';
import type { DeliveryRow } from '../deliveries.repository';
import { DELIVERY_STATUSES } from './delivery.request';
import { iso, isoOrNull } from '../../../common/iso';

export class DeliveryResponse {
  @ApiProperty({ example: 'delivery_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() site_id: string;
  @ApiProperty({ description: 'person_… the delivery is for' }) recipient_id: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: String, nullable: true }) carrier: string | null;
  @ApiProperty({ type: String, nullable: true }) tracking_number: string | null;
  @ApiProperty() description: string;
  @ApiProperty({ type: String, nullable: true }) photo_file_id: string | null;
  @ApiProperty({ format: 'date-time' }) received_at: string;
  @ApiProperty({ type: String, nullable: true }) received_by: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the recipient was told',
  })
  notified_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) collected_at: string | null;
  @ApiProperty({ type: String, nullable: true }) collected_by: string | null;
  @ApiProperty({ type: String, nullable: true }) collected_by_name: string | null;
  @ApiProperty({ type: String, nullable: true }) signature_file_id: string | null;
  @ApiProperty({ type: String, nullable: true }) collection_photo_file_id: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) returned_at: string | null;
  @ApiProperty({ type: String, nullable: true }) return_reason: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function toDeliveryResponse(d: DeliveryRow): DeliveryResponse {
  return {
    id: d.id,
    site_id: d.site_id,
    recipient_id: d.recipient_id,
    status: d.status,
    carrier: d.carrier,
    tracking_number: d.tracking_number,
    description: d.description,
    photo_file_id: d.photo_file_id,
    received_at: iso(d.received_at),
    received_by: d.received_by,
    notified_at: isoOrNull(d.notified_at),
    collected_at: isoOrNull(d.collected_at),
    collected_by: d.collected_by,
    collected_by_name: d.collected_by_name,
    signature_file_id: d.signature_file_id,
    collection_photo_file_id: d.collection_photo_file_id,
    returned_at: isoOrNull(d.returned_at),
    return_reason: d.return_reason,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}
