import { Controller, Get, Header, HttpCode, Options, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { PROTECTED_RESOURCES, ProtectedResource, resourceUrl } from '../../common/errors/bearer-challenge';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { SCOPES } from '../platform/scopes';

const NAMES: Record<ProtectedResource, string> = {
  v1: 'Gatehouse visitor-management API',
  mcp: 'Gatehouse tool server for AI assistants',
};

/** Preflight answer: a browser may GET the documents from any origin, with any request headers (no credentials). */
const PREFLIGHT_MAX_AGE = '3600';

/**
 * RFC 9728 protected-resource metadata (what MCP clients look for first), one document per protected resource at
 * its path-suffixed well-known URL (RFC 9728 §3.1), the URL every 401 of that resource names in `WWW-Authenticate`:
 * `…/oauth-protected-resource/v1` and `…/oauth-protected-resource/mcp`. Each names its resource (the audience its
 * tokens are bound to), the authorization server and the scopes. The root document is not served (404): the root
 * of this origin is no protected resource, and a token for it could not be issued (docs/decisions.md). Readable
 * cross-origin (CORS, no credentials).
 */
@ApiExcludeController()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  private readonly documents: Record<ProtectedResource, Record<string, unknown>>;

  constructor(@InjectConfig() config: Config) {
    const document = (resource: ProtectedResource) => ({
      resource: resourceUrl(config.baseUrl, resource),
      authorization_servers: [config.authUrl],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: NAMES[resource],
      resource_documentation: `${config.docsUrl}/connect-an-app`,
    });
    this.documents = { v1: document('v1'), mcp: document('mcp') };
  }

  @Get(':resource')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('Access-Control-Allow-Origin', '*')
  metadata(@Param('resource') resource: string): Record<string, unknown> {
    if (!(PROTECTED_RESOURCES as readonly string[]).includes(resource))
      throw ApiError.notFound('The protected resource');
    return this.documents[resource as ProtectedResource];
  }

  @Options(':resource')
  @HttpCode(204)
  @Header('Access-Control-Allow-Origin', '*')
  @Header('Access-Control-Allow-Methods', 'GET')
  @Header('Access-Control-Allow-Headers', '*')
  @Header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE)
  preflight(@Param('resource') resource: string): void {
    if (!(PROTECTED_RESOURCES as readonly string[]).includes(resource))
      throw ApiError.notFound('The protected resource');
  }
}
