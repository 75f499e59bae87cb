import { Controller, Delete, Get, Post, Req, Res, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTHORIZE, RouteNeed } from '../visitor/platform/authorize.decorator';
import { VisitorAuthGuard } from '../visitor/platform/visitor-auth.guard';
import { McpToolServer } from './tool-server';

/**
 * What the /mcp route needs from the /v1 guard chain: a secret credential (publishable keys are refused), checked
 * for mode, IP allow-list and the organisation's rate allowance (shared with /v1). No scope and no plan here:
 * each tool call is checked against its own operation's, so a plan without live access gets `plan_required`
 * as a tool error naming the tool.
 */
const MCP_ROUTE: RouteNeed = { scope: null, whenPlanLapsed: true };

/**
 * `{BASE_URL}/mcp`, Streamable HTTP, stateless: any instance answers any call. POST carries the JSON-RPC
 * messages; GET and DELETE (a 2025 client's stream and session end) are answered by the SDK (405: no sessions).
 */
@ApiExcludeController()
@Controller('mcp')
@SetMetadata(AUTHORIZE, MCP_ROUTE)
@UseGuards(VisitorAuthGuard)
export class McpController {
  constructor(private readonly server: McpToolServer) {}

  @Post()
  post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.server.serve(req, reply);
  }

  @Get()
  get(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.server.serve(req, reply);
  }

  @Delete()
  delete(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.server.serve(req, reply);
  }
}
