import { ApiProperty } from '@nestjs/swagger';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../webhooks.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class WebhookAttemptResponse {
  @ApiProperty() attempt_number: number;
  @ApiProperty({ format: 'date-time' }) attempted_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null when no HTTP answer arrived' })
  status_code: number | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The first bytes of the response body' })
  response_excerpt: string | null;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'dlv_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() event_id: string;
  @ApiProperty() endpoint_id: string;
  @ApiProperty() livemode: boolean;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status: string;
  @ApiProperty() attempt_count: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_attempt_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) first_failure_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_attempt_at: string | null;
  @ApiProperty({ type: Number, nullable: true }) last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set while the delivery waits for the organisation plan to include webhooks again',
  })
  held_since: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookDeliveryWithAttemptsResponse extends WebhookDeliveryResponse {
  @ApiProperty({ type: [WebhookAttemptResponse] }) attempts: WebhookAttemptResponse[];
}

export function toDeliveryResponse(d: WebhookDeliveryRow): WebhookDeliveryResponse {
  return {
    id: d.id,
    event_id: d.eventId,
    endpoint_id: d.endpointId,
    livemode: d.livemode,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: iso(d.nextAttemptAt),
    first_failure_at: iso(d.firstFailureAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    held_since: iso(d.heldSince),
    created_at: d.createdAt.toISOString(),
  };
}

export function toAttemptResponse(a: WebhookAttemptRow): WebhookAttemptResponse {
  return {
    attempt_number: a.attemptNumber,
    attempted_at: a.attemptedAt.toISOString(),
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_excerpt: a.responseExcerpt,
  };
}

/** Support staff's lookup: every delivery of one event, with its attempts. */
export class EventDeliveriesResponse {
  @ApiProperty({ type: [WebhookDeliveryWithAttemptsResponse] }) data: WebhookDeliveryWithAttemptsResponse[];
}
