import { ApiProperty } from '@nestjs/swagger';

export class RedeliveryResponse {
  @ApiProperty() id: string;
  @ApiProperty() endpoint_id: string;
  @ApiProperty({ enum: ['pending'] }) status: 'pending';
}

export class RedeliverResponse {
  @ApiProperty() event_id: string;
  @ApiProperty({
    type: [RedeliveryResponse],
    description: 'One new delivery per endpoint; each is retried on the usual schedule',
  })
  deliveries: RedeliveryResponse[];
}
