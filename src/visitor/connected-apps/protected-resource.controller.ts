import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { SCOPES } from '../platform/scopes';

/**
 * RFC 9728 protected-resource metadata of /v1 (what MCP clients look for first): the resource, the authorization
 * server that issues its tokens and the scopes. Served at the root well-known path and at the path-suffixed one
 * (`…/oauth-protected-resource/v1`, RFC 9728 §3.1) that every /v1 401 names in `WWW-Authenticate`.
 */
@ApiExcludeController()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  private readonly body: Record<string, unknown>;

  constructor(@InjectConfig() config: Config) {
    this.body = {
      resource: `${config.baseUrl}/v1`,
      authorization_servers: [config.authUrl],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Gatehouse visitor-management API',
      resource_documentation: `${config.docsUrl}/connect-an-app`,
    };
  }

  @Get(['', 'v1'])
  @Header('Cache-Control', 'public, max-age=3600')
  metadata(): Record<string, unknown> {
    return this.body;
  }
}
