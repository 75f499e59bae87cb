import { Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Request headers the MCP handler reads besides the protocol's own `mcp-…` ones (lower case, as Node gives them). */
const READ_HEADERS = new Set(['accept', 'content-type', 'content-length', 'last-event-id', 'origin', 'host']);

/**
 * The headers of a Fastify request as the SDK reads them (`get`, `has`, `forEach` of web `Headers`), looked up when
 * read instead of copied: only those the SDK reads (content negotiation, the protocol's own headers, a 2025 client's
 * session and resumption ids) are visible; the credential was checked by the guard chain and arrives as authInfo.
 */
class BridgedHeaders {
  constructor(private readonly raw: FastifyRequest['headers']) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (!READ_HEADERS.has(key) && !key.startsWith('mcp-')) return null;
    const value = this.raw[key];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const name in this.raw) {
      const value = this.get(name);
      if (value !== null) fn(value, name);
    }
  }
}

/**
 * What the SDK's handler reads of a web `Request` (method, url, headers, body, signal, clone), over the Fastify
 * request: building an undici `Request` (its `Headers`, URL and `AbortSignal`) cost ~0.1 ms a call for fields the
 * handler never reads. The body arrives parsed (`parsedBody`), so there is none to read; there is no signal, as
 * there was none that could fire before (the `Request` was built without one).
 */
class BridgedRequest {
  readonly headers: BridgedHeaders;
  readonly body = null;
  readonly signal = undefined;

  constructor(
    readonly method: string,
    private readonly path: string,
    private readonly baseUrl: string,
    headers: FastifyRequest['headers'],
  ) {
    this.headers = new BridgedHeaders(headers);
  }

  get url(): string {
    return new URL(this.path, this.baseUrl).href;
  }

  clone(): this {
    return this;
  }
}

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
  const request = new BridgedRequest(req.method, req.url, baseUrl, req.headers);
  const response = await handler.fetch(request as unknown as Request, {
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
