import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import { AuditTrailService } from './audit-trail.service';
import { AuditEventQuery } from './dto/audit-event.query';
import { AuditEventResponse } from './dto/audit-event.response';

@ApiTags('Audit')
@Controller('v1')
export class AuditController {
  constructor(private readonly trail: AuditTrailService) {}

  @Get('audit-events')
  @Authorize({ scope: 'audit:read' })
  @ApiOperation({
    summary: 'Audit trail, newest first',
    description: "The organisation's audit trail, newest first, within the plan's audit-trail period.",
    operationId: 'listAuditEvents',
  })
  @ApiOkResponse({ type: PageOf(AuditEventResponse) })
  list(
    @CurrentCaller('audit') caller: Caller,
    @Query() q: AuditEventQuery,
  ): Promise<Page<AuditEventResponse>> {
    return this.trail.page(caller, q);
  }
}
