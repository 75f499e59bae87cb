import { ApiProperty } from '@nestjs/swagger';
import type { WebhookEndpointRow } from '../webhooks.repository';

export class WebhookEndpointResponse {
  @ApiProperty({ example: 'whep_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ example: 'https://hooks.example.com/gatehouse' }) url: string;
  @ApiProperty() description: string;
  @ApiProperty({
    type: [String],
    example: ['visit.created', 'visit.checked_in'],
    description: 'Event types, or `["*"]` for all (except `watchlist.matched`)',
  })
  enabled_events: string[];
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: 'enabled' | 'disabled';
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['failing', 'disabled_by_user'],
    description: '`failing` when disabled by repeated failure',
  })
  disabled_reason: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** The create and rotate responses are the only ones that carry the signing secret. */
export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJ7yH1nE4tXc=',
    description: 'Signing secret; shown only in this response',
  })
  secret: string;
}

export function toWebhookEndpointResponse(e: WebhookEndpointRow): WebhookEndpointResponse {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabled_events: e.enabledEvents,
    status: e.status,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export class WebhookTestResultResponse {
  @ApiProperty() endpoint_id: string;
  @ApiProperty() event_id: string;
  @ApiProperty() type: string;
  @ApiProperty({ format: 'date-time' }) attempted_at: string;
  @ApiProperty({ enum: ['succeeded', 'failed'] }) outcome: 'succeeded' | 'failed';
  @ApiProperty({
    description: 'HTTP status of the answer; 0 when no answer arrived (timeout, connection or TLS error)',
  })
  status_code: number;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
}
