import { Controller, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { McpRoutes } from './http-bridge';
import { PublicToolServer } from './public-tool-server';

/** `{BASE_URL}/public/mcp`: keyless, read-only, stateless. */
@ApiExcludeController()
@Controller('public/mcp')
export class PublicMcpController extends McpRoutes {
  constructor(protected readonly server: PublicToolServer) {
    super();
  }
}

/** The public content API as tools (`SURFACES` `mcp` with `public`), over the /public/v1 routes themselves. */
@Module({ controllers: [PublicMcpController], providers: [PublicToolServer] })
export class PublicMcpModule {}
