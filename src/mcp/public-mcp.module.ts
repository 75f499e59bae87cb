import { Controller, Delete, Get, Module, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicToolServer } from './public-tool-server';

/** `{BASE_URL}/public/mcp`: keyless, read-only, stateless (GET and DELETE: 405 from the SDK). */
@ApiExcludeController()
@Controller('public/mcp')
export class PublicMcpController {
  constructor(private readonly server: PublicToolServer) {}

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

/** The public content API as tools (`SURFACES` `mcp` with `public`), over the /public/v1 routes themselves. */
@Module({ controllers: [PublicMcpController], providers: [PublicToolServer] })
export class PublicMcpModule {}
