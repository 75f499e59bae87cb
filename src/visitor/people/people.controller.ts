import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { CreatePersonBody, PeopleQuery, UpdatePersonBody } from './dto/person.request';
import { PersonResponse } from './dto/person.response';
import { PeopleService } from './people.service';
import { ApiErrors } from '../platform/doc-decorators';

@ApiTags('People')
@Controller('v1/people')
export class PeopleController {
  constructor(private readonly people: PeopleService) {}

  @Get()
  @Authorize({ scope: 'people:read' })
  @ApiOperation({ summary: 'People (hosts and employees), oldest first', operationId: 'listPeople' })
  @ApiOkResponse({ type: PageOf(PersonResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: PeopleQuery): Promise<Page<PersonResponse>> {
    return this.people.page(tenant, q);
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
  @ApiErrors('conflict', 'plan_required')
  @ApiOperation({ summary: 'Create a person; e-mail unique (case-insensitive)', operationId: 'createPerson' })
  @ApiCreatedResponse({ type: PersonResponse })
  create(@CurrentTenant() tenant: Tenant, @Body() body: CreatePersonBody): Promise<PersonResponse> {
    return this.people.create(tenant, body);
  }

  @Patch(':person_id')
  @Authorize({ scope: 'people:write' })
  @ApiErrors('conflict', 'plan_required')
  @ApiOperation({ summary: 'Change a person', operationId: 'updatePerson' })
  @ApiOkResponse({ type: PersonResponse })
  update(
    @CurrentTenant() tenant: Tenant,
    @Param('person_id') id: string,
    @Body() body: UpdatePersonBody,
  ): Promise<PersonResponse> {
    return this.people.update(tenant, id, body);
  }

  @Post(':person_id/deactivate')
  @HttpCode(200)
  @Authorize({ scope: 'people:write' })
  @ApiErrors('invalid_state')
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
  @ApiErrors('invalid_state', 'plan_required')
  @ApiOperation({
    summary: 'Reactivate a person (event person.reactivated)',
    operationId: 'reactivatePerson',
  })
  @ApiOkResponse({ type: PersonResponse })
  reactivate(@CurrentTenant() tenant: Tenant, @Param('person_id') id: string): Promise<PersonResponse> {
    return this.people.setActive(tenant, id, true);
  }
}
