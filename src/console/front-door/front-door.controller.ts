import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PublicFormResponse } from '../../visitor/forms/dto/forms.response';
import { FormsService } from '../../visitor/forms/forms.service';
import { MessagesService } from '../../visitor/messages/messages.service';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../../visitor/platform/pagination';
import { VisitTypeResponse } from '../../visitor/visit-types/dto/visit-type.response';
import { VisitTypesService } from '../../visitor/visit-types/visit-types.service';
import { VisitResponse } from '../../visitor/visits/dto/visit.response';
import { VisitsService } from '../../visitor/visits/visits.service';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { ConsoleAuth, ConsoleTenant, CurrentAccount } from '../auth/console-auth';
import type { Tenant } from '../../visitor/platform/tenant';
import { seesProtectedAnswers } from '../visits/visit-view';
import { ModeQuery, SaveVisitTypeBody, PublishFormBody } from './dto/front-door.request';
import { OutboxMessageResponse, toOutbox } from './dto/outbox-message.response';
import { VisitTypeListResponse } from './dto/visit-type-list.response';

/**
 * The front door in the console: the test outbox and visits with every answer (any signed-in person), and the
 * configuration Owners and Admins manage — visit types and forms, saved in both modes so the sandbox stays a copy.
 */
@ApiTags('Console')
@Controller('console')
export class ConsoleFrontDoorController {
  constructor(
    private readonly messages: MessagesService,
    private readonly visits: VisitsService,
    private readonly visitTypes: VisitTypesService,
    private readonly forms: FormsService,
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Get('test-outbox')
  @ConsoleAuth()
  @ApiOperation({ summary: 'Messages test mode would have sent (passes, notices), newest first' })
  @ApiOkResponse({ type: PageOf(OutboxMessageResponse) })
  outbox(@CurrentAccount() a: ConsoleCaller, @Query() q: ListQuery): Promise<Page<OutboxMessageResponse>> {
    const tenant = { organisationId: a.organisation_id, livemode: false };
    return this.cursors.codec.createdPage(
      'console-test-outbox',
      tenant,
      q,
      (limit, before) =>
        this.messages.list(
          tenant,
          limit + 1,
          before ? { createdAt: new Date(before.createdAt), id: before.id } : undefined,
        ),
      toOutbox,
    );
  }

  @Get('visits/:visit_id')
  @ConsoleAuth()
  @ApiOperation({ summary: 'A visit; protected answers (sensitive, masked) only for Owners and Admins' })
  @ApiOkResponse({ type: VisitResponse })
  visit(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: Tenant,
    @Param('visit_id') id: string,
    @Query() _q: ModeQuery,
  ): Promise<VisitResponse> {
    const audience = seesProtectedAnswers(a.role) ? 'console' : 'integration';
    return this.visits.get({ tenant: t, hiddenBefore: null, seesWatchlist: true }, id, audience);
  }

  @Get('visit-types')
  @ConsoleAuth()
  @ApiOperation({ summary: 'Visit types of one mode (built-in and organisation-defined), with public forms' })
  @ApiOkResponse({ type: VisitTypeListResponse })
  async visitTypeList(@ConsoleTenant() t: Tenant, @Query() _q: ModeQuery): Promise<VisitTypeListResponse> {
    return { data: await this.visitTypes.list(t) };
  }

  @Get('visit-types/:key')
  @ConsoleAuth()
  @ApiOperation({ summary: 'One visit type of one mode' })
  @ApiOkResponse({ type: VisitTypeResponse })
  visitType(
    @ConsoleTenant() t: Tenant,
    @Param('key') key: string,
    @Query() _q: ModeQuery,
  ): Promise<VisitTypeResponse> {
    return this.visitTypes.get(t, key);
  }

  @Put('visit-types/:key')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary: 'Create or change a visit type (name, on/off, pre-registration) in live mode and its test copy',
  })
  @ApiOkResponse({ type: VisitTypeResponse })
  saveVisitType(
    @CurrentAccount() a: ConsoleCaller,
    @Param('key') key: string,
    @Body() body: SaveVisitTypeBody,
    @Query() q: ModeQuery,
  ): Promise<VisitTypeResponse> {
    return this.visitTypes.saveInBothModes(a.organisation_id, key, body, q.mode);
  }

  @Delete('visit-types/:key')
  @HttpCode(204)
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({
    summary:
      'Delete an organisation-defined visit type no visit has (both modes); built-in types are turned off',
  })
  @ApiNoContentResponse()
  async deleteVisitType(@CurrentAccount() a: ConsoleCaller, @Param('key') key: string): Promise<void> {
    await this.visitTypes.remove(a.organisation_id, key);
  }

  @Put('forms/:kind')
  @ConsoleAuth('owner', 'admin')
  @ApiOperation({ summary: 'Publish a new version of the visit or person form' })
  @ApiOkResponse({ type: PublicFormResponse })
  async publishForm(
    @CurrentAccount() a: ConsoleCaller,
    @Param('kind') kind: string,
    @Body() body: PublishFormBody,
  ): Promise<PublicFormResponse> {
    if (kind !== 'visit' && kind !== 'person')
      throw ApiError.validation([{ location: 'path.kind', message: 'must be visit or person' }]);
    const form = await this.forms.publishInBothModes(a.organisation_id, kind, body.schema);
    return { version: form.version, schema: form.schema };
  }
}
