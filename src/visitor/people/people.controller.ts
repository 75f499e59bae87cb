import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { OrganisationsRepository } from '../organisations/organisations.repository';
import { Authorize, IdempotentPost } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { CreatePersonBody, PeopleQuery, UpdatePersonBody } from './dto/person.request';
import { PersonResponse } from './dto/person.response';
import { PeopleService } from './people.service';

@ApiTags('People')
@Controller('v1/people')
export class PeopleController {
  constructor(
    private readonly people: PeopleService,
    private readonly orgs: OrganisationsRepository,
    private readonly cursors: CursorCodecProvider,
  ) {}

  private async checkSites(tenant: Tenant, ids: string[] | undefined): Promise<void> {
    if (!ids?.length) return;
    const found = await this.orgs.existingSiteIds(tenant, ids);
    const errors = ids
      .map((id, i) => ({ id, i }))
      .filter(({ id }) => !found.has(id))
      .map(({ i, id }) => ({
        location: `body.site_ids.${i}`,
        message: `no site ${id} in this organisation and mode`,
      }));
    if (errors.length) throw ApiError.validation(errors);
  }

  @Get()
  @Authorize({ scope: 'people:read' })
  @ApiOperation({ summary: 'People (hosts and employees), oldest first', operationId: 'listPeople' })
  @ApiOkResponse({ type: PageOf(PersonResponse) })
  async list(@CurrentTenant() tenant: Tenant, @Query() q: PeopleQuery): Promise<Page<PersonResponse>> {
    const limit = q.limit ?? 25;
    const after = q.cursor ? this.cursors.codec.decode('people', tenant, q.cursor, 2) : undefined;
    const res = await this.people.list(tenant, {
      q: q.q,
      canHost: q.can_host,
      email: q.email,
      limit,
      after: after ? { createdAt: new Date(String(after[0])), id: String(after[1]) } : undefined,
    });
    return {
      data: res.data,
      has_more: res.hasMore,
      next_cursor:
        res.hasMore && res.last
          ? this.cursors.codec.encode('people', tenant, [res.last.createdAt.toISOString(), res.last.id])
          : null,
    };
  }

  @Get(':person_id')
  @Authorize({ scope: 'people:read' })
  @ApiOperation({ summary: 'One person', operationId: 'getPerson' })
  @ApiOkResponse({ type: PersonResponse })
  get(@CurrentTenant() tenant: Tenant, @Param('person_id') id: string): Promise<PersonResponse> {
    return this.people.get(tenant, id);
  }

  @Post()
  @Authorize({ scope: 'people:write' })
  @IdempotentPost()
  @ApiOperation({ summary: 'Create a person; e-mail unique (case-insensitive)', operationId: 'createPerson' })
  @ApiCreatedResponse({ type: PersonResponse })
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreatePersonBody): Promise<PersonResponse> {
    await this.checkSites(tenant, body.site_ids);
    return this.people.create(tenant, body);
  }

  @Patch(':person_id')
  @Authorize({ scope: 'people:write' })
  @ApiOperation({ summary: 'Change a person', operationId: 'updatePerson' })
  @ApiOkResponse({ type: PersonResponse })
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('person_id') id: string,
    @Body() body: UpdatePersonBody,
  ): Promise<PersonResponse> {
    await this.checkSites(tenant, body.site_ids);
    return this.people.update(tenant, id, body);
  }

  @Post(':person_id/deactivate')
  @HttpCode(200)
  @Authorize({ scope: 'people:write' })
  @IdempotentPost()
  @ApiOperation({
    summary: 'Deactivate a person (event person.deactivated)',
    operationId: 'deactivatePerson',
  })
  @ApiOkResponse({ type: PersonResponse })
  deactivate(@CurrentTenant() tenant: Tenant, @Param('person_id') id: string): Promise<PersonResponse> {
    return this.people.setActive(tenant, id, false);
  }

  @Post(':person_id/reactivate')
  @HttpCode(200)
  @Authorize({ scope: 'people:write' })
  @IdempotentPost()
  @ApiOperation({
    summary: 'Reactivate a person (event person.reactivated)',
    operationId: 'reactivatePerson',
  })
  @ApiOkResponse({ type: PersonResponse })
  reactivate(@CurrentTenant() tenant: Tenant, @Param('person_id') id: string): Promise<PersonResponse> {
    return this.people.setActive(tenant, id, true);
  }
}
