import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { Clock } from '../../common/clock';
import { Authorize } from '../platform/authorize.decorator';
import type { AuditRow } from './audit.repository';
import { AuditRepository } from './audit.repository';
import type { Credential } from '../platform/credential';
import { CurrentCredential } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../platform/pagination';
import { historyCutoff } from '../platform/plans';

export class AuditEventQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only this action, e.g. `api_key.created`' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]+\.[a-z_]+$/, { message: 'must be an action such as api_key.created' })
  action?: string;
}

export class AuditActorResponse {
  @ApiProperty({ enum: ['api_key', 'oauth_token', 'console_account', 'operator', 'system'] }) type: string;
  @ApiProperty({ type: String, nullable: true }) id: string | null;
}

export class AuditTargetResponse {
  @ApiProperty() type: string;
  @ApiProperty() id: string;
}

export class AuditEventResponse {
  @ApiProperty({ example: 'audit_3kT9…' }) id: string;
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

function toAuditEventResponse(r: AuditRow): AuditEventResponse {
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

@ApiTags('Audit')
@Controller('v1')
export class AuditController {
  constructor(
    private readonly repo: AuditRepository,
    private readonly cursors: CursorCodecProvider,
    private readonly clock: Clock,
  ) {}

  @Get('audit-events')
  @Authorize({ scope: 'audit:read' })
  @ApiOperation({
    summary: "The organisation's audit trail, newest first, within the plan's audit-trail period",
    operationId: 'listAuditEvents',
  })
  @ApiOkResponse({ type: PageOf(AuditEventResponse) })
  async list(
    @CurrentCredential() c: Credential,
    @Query() q: AuditEventQuery,
  ): Promise<Page<AuditEventResponse>> {
    const tenant = { organisationId: c.organisation.id, livemode: c.livemode };
    const since = historyCutoff(
      'audit',
      c.organisation.plan,
      c.livemode,
      c.organisation.overrides,
      this.clock.now(),
    );
    return this.cursors.codec.createdPage(
      'audit-events',
      tenant,
      q,
      (limit, before) =>
        this.repo.list(tenant.organisationId, tenant.livemode, { limit, action: q.action, since, before }),
      toAuditEventResponse,
    );
  }
}
