import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { OrganisationsRepository } from './organisations.repository';
import { OrganisationsService } from './organisations.service';
import {
  OrganisationResponse,
  SiteResponse,
  toOrganisationResponse,
  toSiteResponse,
} from './dto/organisation.response';

@ApiTags('Organisation')
@Controller('v1')
export class OrganisationsController {
  constructor(
    private readonly orgs: OrganisationsService,
    private readonly repo: OrganisationsRepository,
    private readonly cursors: CursorCodecProvider,
  ) {}

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
    return this.cursors.codec.createdPage(
      'sites',
      tenant,
      q,
      (limit, after) => this.repo.listSites(tenant, limit, after),
      toSiteResponse,
    );
  }
}
