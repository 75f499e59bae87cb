import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import type { Tenant } from '../platform/tenant';
import { FormsResponse } from './dto/forms.response';
import { FormsService } from './forms.service';

@ApiTags('Visit types and forms')
@Controller('v1')
export class FormsController {
  constructor(private readonly forms: FormsService) {}

  @Get('forms')
  @Authorize({ scope: 'forms:read' })
  @ApiOperation({ summary: 'Custom field schemas of visits and people', operationId: 'getForms' })
  @ApiOkResponse({ type: FormsResponse })
  all(@CurrentTenant() tenant: Tenant): Promise<FormsResponse> {
    return this.forms.both(tenant);
  }
}
