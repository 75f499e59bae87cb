import { Controller, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AUTHORIZE, RouteNeed } from '../visitor/platform/authorize.decorator';
import { VisitorAuthGuard } from '../visitor/platform/visitor-auth.guard';
import { McpRoutes } from './http-bridge';
import { McpToolServer } from './tool-server';

/**
 * What the /mcp route needs from the /v1 guard chain: a secret credential (publishable keys are refused), checked
 * for mode, IP allow-list and the organisation's rate allowance (shared with /v1). No scope and no plan here:
 * each tool call is checked against its own operation's, so a plan without live access gets `plan_required`
 * as a tool error naming the tool.
 */
const MCP_ROUTE: RouteNeed = { scope: null, whenPlanLapsed: true };

/** `{BASE_URL}/mcp`, Streamable HTTP, stateless: any instance answers any call. */
@ApiExcludeController()
@Controller('mcp')
@SetMetadata(AUTHORIZE, MCP_ROUTE)
@UseGuards(VisitorAuthGuard)
export class McpController extends McpRoutes {
  constructor(protected readonly server: McpToolServer) {
    super();
  }
}
