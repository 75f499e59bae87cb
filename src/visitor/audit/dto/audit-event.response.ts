import { ApiProperty } from '@nestjs/swagger';
import type { AuditRow } from '../audit.repository';

export class AuditActorResponse {
  @ApiProperty({ enum: ['api_key', 'oauth_token', 'console_account', 'operator', 'system'] }) type: string;
  @ApiProperty({ type: String, nullable: true }) id: string | null;
}

export class AuditTargetResponse {
  @ApiProperty() type: string;
  @ApiProperty() id: string;
}

export class AuditEventResponse {
  @ApiProperty({ example: 'audit_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ example: 'api_key.created' }) action: string;
  @ApiProperty({ type: AuditActorResponse }) actor: AuditActorResponse;
  @ApiProperty({ type: AuditTargetResponse, nullable: true }) target: AuditTargetResponse | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'null for organisation-wide actions' })
  livemode: boolean | null;
  @ApiProperty({ type: String, nullable: true }) ip: string | null;
  @ApiProperty({ type: String, nullable: true }) request_id: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toAuditEventResponse(r: AuditRow): AuditEventResponse {
  return {
    id: r.id,
    action: r.action,
    actor: { type: r.actor_type, id: r.actor_id },
    target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id } : null,
    livemode: r.livemode,
    ip: r.ip,
    request_id: r.request_id,
    data: r.data,
    created_at: new Date(r.created_at).toISOString(),
  };
}
