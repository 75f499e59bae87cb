import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES } from '../event-types';

export class EventDataResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Snapshot of the object in the shape its own endpoint returns (protected answers omitted)',
  })
  object: Record<string, unknown>;
}

/** The event envelope: exactly the JSON body webhook receivers got. */
export class EventResponse {
  @ApiProperty({ example: 'evt_3kT9…' }) id: string;
  @ApiProperty({ enum: EVENT_TYPES }) type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty() organisation_id: string;
  @ApiProperty() livemode: boolean;
  @ApiProperty({ type: EventDataResponse }) data: EventDataResponse;
}

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
