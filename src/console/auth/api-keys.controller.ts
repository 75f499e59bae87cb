import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApiKeyResponse,
  ApiKeysService,
  CreatedApiKeyResponse,
  toApiKeyResponse,
} from '../../visitor/api-keys/api-keys.service';
import { CursorCodecProvider } from '../../visitor/platform/cursor-codec.provider';
import { ListQuery, Page, PageOf } from '../../visitor/platform/pagination';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { ConsoleAuth, CurrentAccount } from './console-auth';
import { CreateApiKeyBody } from './dto/create-api-key.request';
/** API keys, for Owners and Admins: create (the key is shown once), list, revoke. */
@ApiTags('Console')
@Controller('console/api-keys')
@ConsoleAuth('owner', 'admin')
export class ConsoleApiKeysController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly cursors: CursorCodecProvider,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key; the response is the only time the full key is shown' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  create(@CurrentAccount() a: ConsoleCaller, @Body() body: CreateApiKeyBody): Promise<CreatedApiKeyResponse> {
    return this.keys.create(a.organisation_id, body, { type: 'console_account', id: a.id });
  }

  @Get()
  @ApiOperation({ summary: "The organisation's API keys (both modes), oldest first" })
  @ApiOkResponse({ type: PageOf(ApiKeyResponse) })
  async list(@CurrentAccount() a: ConsoleCaller, @Query() q: ListQuery): Promise<Page<ApiKeyResponse>> {
    // Keys are organisation-wide (each carries its mode); the cursor is bound to the organisation.
    const tenant = { organisationId: a.organisation_id, livemode: true };
    return this.cursors.codec.createdPage(
      'console-api-keys',
      tenant,
      q,
      (limit, after) => this.keys.list(a.organisation_id, limit, after),
      toApiKeyResponse,
    );
  }

  @Post(':key_id/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key: immediate and irreversible' })
  @ApiOkResponse({ type: ApiKeyResponse })
  revoke(@CurrentAccount() a: ConsoleCaller, @Param('key_id') id: string): Promise<ApiKeyResponse> {
    return this.keys.revoke(a.organisation_id, id, { type: 'console_account', id: a.id });
  }
}
