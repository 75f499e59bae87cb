import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential } from '../platform/current';
import { VisitTypeResponse } from './dto/visit-type.response';
import { VisitTypesService } from './visit-types.service';
import { ListQuery, Page, PageOf } from '../platform/pagination';

const tenantOf = (c: Credential) => ({ organisationId: c.organisation.id, livemode: c.livemode });

/**
 * Visit types. With a publishable key only types that are on and open for pre-registration exist
 * (each with its `public_form`).
 */
@ApiTags('Visit types and forms')
@Controller('v1')
export class VisitTypesController {
  constructor(private readonly types: VisitTypesService) {}

  @Get('visit-types')
  @Authorize({ scope: 'forms:read', publishable: true })
  @ApiOperation({ summary: 'Visit types with their public forms', operationId: 'listVisitTypes' })
  @ApiOkResponse({ type: PageOf(VisitTypeResponse) })
  list(@CurrentCredential() c: Credential, @Query() q: ListQuery): Promise<Page<VisitTypeResponse>> {
    return this.types.page(tenantOf(c), c.publishable, q);
  }

  @Get('visit-types/:visit_type')
  @Authorize({ scope: 'forms:read', publishable: true })
  @ApiOperation({ summary: 'One visit type', operationId: 'getVisitType' })
  @ApiOkResponse({ type: VisitTypeResponse })
  get(@CurrentCredential() c: Credential, @Param('visit_type') key: string): Promise<VisitTypeResponse> {
    return this.types.get(tenantOf(c), key, { publishable: c.publishable });
  }
}
