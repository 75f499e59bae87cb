import { Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Request headers the MCP handler reads besides the protocol's own `mcp-…` ones (lower case, as Node gives them). */
const READ_HEADERS = new Set(['accept', 'content-type', 'content-length', 'last-event-id', 'origin', 'host']);

/**
 * Answers a Fastify request with an MCP handler's web-standard face: the request (its body already parsed by the
 * JSON parser) as a `Request`, the `Response` written back (a JSON body, or an SSE stream for 2025 clients).
 */
export async function serveMcp(
  handler: McpHttpHandler,
  baseUrl: string,
  req: FastifyRequest,
  reply: FastifyReply,
  authInfo?: AuthInfo,
): Promise<void> {
  // The headers the SDK reads (content negotiation, the protocol's own headers, a 2025 client's session and
  // resumption ids); the credential was checked by the guard chain and arrives as authInfo.
  const headers = new Headers();
  for (const name in req.headers) {
    if (!READ_HEADERS.has(name) && !name.startsWith('mcp-')) continue;
    const value = req.headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const request = new Request(new URL(req.url, baseUrl), { method: req.method, headers });
  const response = await handler.fetch(request, {
    authInfo,
    parsedBody: req.method === 'POST' ? req.body : undefined,
  });
  void reply.status(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') void reply.header(name, value);
  });
  const type = response.headers.get('content-type') ?? '';
  if (response.body && type.includes('text/event-stream'))
    await reply.send(Readable.fromWeb(response.body as unknown as WebReadableStream));
  else await reply.send(Buffer.from(await response.arrayBuffer()));
}

/**
 * The routes of a tool server's endpoint (a subclass adds `@Controller(path)`): POST carries the JSON-RPC
 * messages; GET and DELETE (a 2025 client's stream and session end) are answered by the SDK (405: no sessions).
 */
export abstract class McpRoutes {
  protected abstract readonly server: { serve(req: FastifyRequest, reply: FastifyReply): Promise<void> };

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
