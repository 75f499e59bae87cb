import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { Caller, CurrentCaller, CurrentTenant } from '../platform/current';
import type { Tenant } from '../platform/tenant';
import { VisitorResponse } from '../visits/dto/visit.response';
import { VisitsService } from '../visits/visits.service';
import { VisitorErasure } from './visitor-erasure.service';

@ApiTags('Visits')
@Controller('v1/visitors')
export class VisitorsController {
  constructor(
    private readonly visits: VisitsService,
    private readonly erasure: VisitorErasure,
  ) {}

  @Get(':visitor_id')
  @Authorize({ scope: 'visitors:read' })
  @ApiOperation({ summary: 'A visitor record (matched by phone across visits)', operationId: 'getVisitor' })
  @ApiOkResponse({ type: VisitorResponse })
  get(@CurrentCaller('visits') caller: Caller, @Param('visitor_id') id: string): Promise<VisitorResponse> {
    return this.visits.getVisitor(caller, id);
  }

  @Delete(':visitor_id')
  @HttpCode(204)
  @Authorize({ scope: 'visitors:delete' })
  @ApiOperation({
    summary:
      "Permanently erase the visitor's personal data everywhere (hidden records too); emits visitor.erased",
    operationId: 'eraseVisitor',
  })
  @ApiNoContentResponse()
  erase(@CurrentTenant() tenant: Tenant, @Param('visitor_id') id: string): Promise<void> {
    return this.erasure.erase(tenant, id);
  }
}
