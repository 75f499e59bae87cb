import { ApiProperty } from '@nestjs/swagger';
import { RequestLogEntry } from '../request-log.entry';

export class RequestLogResponse {
  @ApiProperty({ example: 'req_0Q7bJk2m8Yc4Ld1Vw6Rn9Xa3' }) request_id: string;
  @ApiProperty({ type: String, nullable: true, description: 'Public error reference, when one was given' })
  error_ref: string | null;
  @ApiProperty({ format: 'date-time' }) received_at: string;
  @ApiProperty({ enum: ['public', 'visitor', 'mcp', 'console', 'docs', 'health', 'other'] }) surface: string;
  @ApiProperty() method: string;
  @ApiProperty({ description: 'Path and query; values of secret-looking query parameters are redacted' })
  path: string;
  @ApiProperty() status: number;
  @ApiProperty({ type: String, nullable: true }) error_code: string | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) client_ip: string | null;
  @ApiProperty({ type: String, nullable: true }) organisation_id: string | null;
  @ApiProperty({ type: String, nullable: true }) credential_id: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) livemode: boolean | null;
}

export function toRequestLogResponse(e: RequestLogEntry): RequestLogResponse {
  return {
    request_id: e.requestId,
    error_ref: e.errorRef,
    received_at: e.receivedAt.toISOString(),
    surface: e.surface,
    method: e.method,
    path: e.path,
    status: e.status,
    error_code: e.errorCode,
    duration_ms: Math.round(e.durationMs * 100) / 100,
    client_ip: e.clientIp,
    organisation_id: e.organisationId,
    credential_id: e.credentialId,
    livemode: e.livemode,
  };
}

export class RequestLogLookupResponse {
  @ApiProperty({ type: [RequestLogResponse] }) data: RequestLogResponse[];
}
