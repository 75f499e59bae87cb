import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { ConnectedAppsService } from '../../visitor/connected-apps/connected-apps.service';
import { ConnectedAppResponse } from '../../visitor/connected-apps/dto/connected-app.response';
import { ClientsService } from '../../oauth/clients/clients.service';
import { RegisterAppBody } from '../../oauth/clients/dto/register-app.request';
import { OAuthAppResponse, RegisteredOAuthAppResponse } from '../../oauth/clients/dto/oauth-app.response';
import { ConsoleAuth, CurrentAccount } from '../auth/console-auth';

const actor = (a: ConsoleCaller) => ({ type: 'console_account' as const, id: a.id });

/**
 * Connected apps, for Owners and Admins: every app that asked to connect or is connected (who connected it, when,
 * scopes, last use), approving or denying a pending app, and revoking an app (its tokens stop working at once).
 */
@ApiTags('Console')
@Controller('console/connected-apps')
@ConsoleAuth('owner', 'admin')
export class ConsoleConnectedAppsController {
  constructor(private readonly apps: ConnectedAppsService) {}

  @Get()
  @ApiOperation({ summary: 'Apps that asked to connect to the organisation or are connected' })
  @ApiOkResponse({ type: [ConnectedAppResponse] })
  list(@CurrentAccount() a: ConsoleCaller): Promise<ConnectedAppResponse[]> {
    return this.apps.list(a.organisation_id);
  }

  @Post(':client_id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve an app for the organisation' })
  @ApiOkResponse({ type: ConnectedAppResponse })
  approve(@CurrentAccount() a: ConsoleCaller, @Param('client_id') id: string): Promise<ConnectedAppResponse> {
    return this.apps.decide(a.organisation_id, id, 'approved', actor(a));
  }

  @Post(':client_id/deny')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deny an app: its authorization requests end with access_denied' })
  @ApiOkResponse({ type: ConnectedAppResponse })
  deny(@CurrentAccount() a: ConsoleCaller, @Param('client_id') id: string): Promise<ConnectedAppResponse> {
    return this.apps.decide(a.organisation_id, id, 'denied', actor(a));
  }

  @Post(':client_id/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an app: every token of it is unauthorized from the next call' })
  @ApiOkResponse({ type: ConnectedAppResponse })
  revoke(@CurrentAccount() a: ConsoleCaller, @Param('client_id') id: string): Promise<ConnectedAppResponse> {
    return this.apps.revoke(a.organisation_id, id, actor(a));
  }
}

/** OAuth apps the organisation registers (Pro and Enterprise; Owners and Admins). */
@ApiTags('Console')
@Controller('console/oauth-apps')
@ConsoleAuth('owner', 'admin')
export class ConsoleOAuthAppsController {
  constructor(private readonly clients: ClientsService) {}

  @Post()
  @ApiOperation({ summary: 'Register an app; a confidential app gets a secret shown only in this response' })
  @ApiCreatedResponse({ type: RegisteredOAuthAppResponse })
  register(
    @CurrentAccount() a: ConsoleCaller,
    @Body() body: RegisterAppBody,
  ): Promise<RegisteredOAuthAppResponse> {
    return this.clients.register(a, body);
  }

  @Get()
  @ApiOperation({ summary: "The organisation's registered apps" })
  @ApiOkResponse({ type: [OAuthAppResponse] })
  list(@CurrentAccount() a: ConsoleCaller): Promise<OAuthAppResponse[]> {
    return this.clients.list(a);
  }
}
