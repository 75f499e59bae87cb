import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential } from '../platform/current';
import { FormsService } from '../forms/forms.service';
import { PublicFormResponse, VisitTypeResponse } from './dto/visit-type.response';
import { VisitTypesService } from './visit-types.service';

export class VisitTypeListResponse {
  @ApiProperty({ type: [VisitTypeResponse] }) data: VisitTypeResponse[];
}

export class FormsResponse {
  @ApiProperty({ type: PublicFormResponse, description: 'Custom fields of visits (JSON Schema)' })
  visit: PublicFormResponse;
  @ApiProperty({ type: PublicFormResponse, description: 'Custom fields of people (JSON Schema)' })
  person: PublicFormResponse;
}

const tenantOf = (c: Credential) => ({ organisationId: c.organisation.id, livemode: c.livemode });

/**
 * Visit types and forms. With a publishable key only types that are on and open for pre-registration exist
 * (each with its `public_form`); `GET /forms` is closed to publishable keys.
 */
@ApiTags('Visit types and forms')
@Controller('v1')
export class VisitTypesController {
  constructor(
    private readonly types: VisitTypesService,
    private readonly forms: FormsService,
  ) {}

  @Get('visit-types')
  @Authorize({ scope: 'forms:read', publishable: true })
  @ApiOperation({ summary: 'Visit types with their public forms', operationId: 'listVisitTypes' })
  @ApiOkResponse({ type: VisitTypeListResponse })
  async list(@CurrentCredential() c: Credential): Promise<VisitTypeListResponse> {
    return { data: await this.types.list(tenantOf(c), { publishable: c.publishable }) };
  }

  @Get('visit-types/:visit_type')
  @Authorize({ scope: 'forms:read', publishable: true })
  @ApiOperation({ summary: 'One visit type', operationId: 'getVisitType' })
  @ApiOkResponse({ type: VisitTypeResponse })
  get(@CurrentCredential() c: Credential, @Param('visit_type') key: string): Promise<VisitTypeResponse> {
    return this.types.get(tenantOf(c), key, { publishable: c.publishable });
  }

  @Get('forms')
  @Authorize({ scope: 'forms:read' })
  @ApiOperation({ summary: 'Custom field schemas of visits and people', operationId: 'getForms' })
  @ApiOkResponse({ type: FormsResponse })
  async all(@CurrentCredential() c: Credential): Promise<FormsResponse> {
    const tenant = tenantOf(c);
    const [visit, person] = await Promise.all([
      this.forms.current(tenant, 'visit'),
      this.forms.current(tenant, 'person'),
    ]);
    return { visit, person };
  }
}
