import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential } from '../platform/current';
import { FormsService } from '../forms/forms.service';
import { PublicFormResponse, VisitTypeResponse } from './dto/visit-type.response';
import { BUILT_IN_TYPES, VisitTypesService } from './visit-types.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../platform/pagination';

const BUILT_IN_ORDER = Object.keys(BUILT_IN_TYPES);
/** Built-in types first, in their published order, then the organisation's own by key. */
const orderOf = (t: VisitTypeResponse): [number, string | number] =>
  t.built_in ? [0, BUILT_IN_ORDER.indexOf(t.key)] : [1, t.key];

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
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Get('visit-types')
  @Authorize({ scope: 'forms:read', publishable: true })
  @ApiOperation({ summary: 'Visit types with their public forms', operationId: 'listVisitTypes' })
  @ApiOkResponse({ type: PageOf(VisitTypeResponse) })
  async list(@CurrentCredential() c: Credential, @Query() q: ListQuery): Promise<Page<VisitTypeResponse>> {
    const tenant = tenantOf(c);
    const types = (await this.types.list(tenant, { publishable: c.publishable })).sort((a, b) => {
      const [x, y] = [orderOf(a), orderOf(b)];
      return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
    });
    return this.cursors.codec.memoryPage('visit_types', tenant, q, types, orderOf, (t) => t);
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
