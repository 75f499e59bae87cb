import { ApiProperty } from '@nestjs/swagger';
import type { EventRow } from '../events.repository';
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
  @ApiProperty({ example: 'evt_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ enum: EVENT_TYPES }) type: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty() organisation_id: string;
  @ApiProperty() livemode: boolean;
  @ApiProperty({ type: EventDataResponse }) data: EventDataResponse;
}

/** The stored body is the envelope receivers got, byte for byte; /v1/events returns it as is. */
export const toEventResponse = (r: EventRow): EventResponse => JSON.parse(r.body) as EventResponse;
