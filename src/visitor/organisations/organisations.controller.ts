import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { ListQuery, Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { OrganisationsService } from './organisations.service';
import { OrganisationResponse, SiteResponse, toOrganisationResponse } from './dto/organisation.response';

@ApiTags('Organisation')
@Controller('v1')
export class OrganisationsController {
  constructor(private readonly orgs: OrganisationsService) {}

  @Get('organisation')
  @Authorize({ scope: 'organisation:read' })
  @ApiOperation({ summary: 'The organisation of the credential', operationId: 'getOrganisation' })
  @ApiOkResponse({ type: OrganisationResponse })
  async organisation(@CurrentTenant() tenant: Tenant): Promise<OrganisationResponse> {
    return toOrganisationResponse(await this.orgs.organisation(tenant.organisationId), tenant.livemode);
  }

  @Get('sites')
  @Authorize({ scope: 'sites:read' })
  @ApiOperation({ summary: 'Sites and their gates, oldest first', operationId: 'listSites' })
  @ApiOkResponse({ type: PageOf(SiteResponse) })
  async sites(@CurrentTenant() tenant: Tenant, @Query() q: ListQuery): Promise<Page<SiteResponse>> {
    return this.orgs.sitesPage(tenant, q);
  }
}
