import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type McpHttpHandler,
  type Tool,
} from '@modelcontextprotocol/server';
import Ajv, { type ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PREFIX } from '../common/http/surface';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { serveMcp } from './http-bridge';

const KINDS = ['campaigns', 'petitions', 'events', 'jobs', 'surveys', 'durbars'] as const;
const str = (description: string) => ({ type: 'string', description });
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const KIND = { type: 'string', enum: [...KINDS], description: 'What to look for' };

/** The keyless tools of `{BASE_URL}/public/mcp`: each call is one GET of `/public/v1`. */
const TOOLS: readonly (Tool & { path(a: Record<string, unknown>): string })[] = [
  {
    name: 'list_public_content',
    title: 'Search public content',
    description:
      'Lists published campaigns, petitions, events, jobs, surveys or durbars (town-hall rooms), newest first, with filters.',
    inputSchema: {
      type: 'object',
      properties: {
        kind: KIND,
        q: str('Words to search for (events, jobs, durbars)'),
        category: str('Category slug'),
        page: { type: 'integer', minimum: 1, description: 'Page number (default 1)' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Page size (default 20)' },
        filters: {
          type: 'object',
          additionalProperties: { type: ['string', 'number', 'boolean'] },
          description: 'Other filters of that list, e.g. country, status, location, date_from',
        },
      },
      required: ['kind'],
      additionalProperties: false,
    },
    annotations: READ,
    path: (a) => {
      const query = new URLSearchParams();
      const given = { q: a.q, category: a.category, page: a.page, limit: a.limit, ...(a.filters as object) };
      for (const [k, v] of Object.entries(given)) if (v !== undefined) query.set(k, String(v));
      const qs = query.toString();
      return `/${String(a.kind)}${qs ? `?${qs}` : ''}`;
    },
  },
  {
    name: 'get_public_content',
    title: 'Read public content',
    description: 'One campaign, petition, event, job, survey or durbar by its slug.',
    inputSchema: {
      type: 'object',
      properties: { kind: KIND, slug: str('Its slug, from list_public_content') },
      required: ['kind', 'slug'],
      additionalProperties: false,
    },
    annotations: READ,
    path: (a) => `/${String(a.kind)}/${encodeURIComponent(String(a.slug))}`,
  },
  {
    name: 'get_durbar_transcript',
    title: 'Read a durbar transcript',
    description:
      'The machine transcript of a recorded durbar. It is machine transcription: quote its disclaimer with anything you take from it.',
    inputSchema: {
      type: 'object',
      properties: { slug: str('The durbar slug') },
      required: ['slug'],
      additionalProperties: false,
    },
    annotations: READ,
    path: (a) => `/durbars/${encodeURIComponent(String(a.slug))}/transcript`,
  },
];

const LISTED: Tool[] = TOOLS.map(({ path: _path, ...tool }) => tool);

/**
 * The keyless, read-only tool server of `{BASE_URL}/public/mcp`: search and read the public content API. Each tool
 * call is one in-process GET of the /public/v1 route (Fastify's `inject`, from the caller's address, without a
 * key), so it is counted against the caller's keyless allowance, projected by the same privacy rules and logged
 * like any keyless read; its answer is that route's body. Listing the tools costs nothing.
 */
@Injectable()
export class PublicToolServer implements OnApplicationShutdown {
  private readonly handler: McpHttpHandler;
  private readonly validators: ReadonlyMap<string, ValidateFunction>;

  constructor(@InjectConfig() private readonly config: Config) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    this.validators = new Map(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
    this.handler = createMcpHandler(({ authInfo }) => this.serverFor(authInfo?.extra?.req as FastifyRequest));
  }

  /**
   * The handler closes after the HTTP server has finished its in-flight requests (Nest closes the server between
   * the destroy and the shutdown hooks): closing it earlier would end a tool call mid-way.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }

  serve(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    return serveMcp(this.handler, this.config.baseUrl, req, reply, {
      token: '',
      clientId: 'keyless',
      scopes: [],
      extra: { req },
    });
  }

  private serverFor(req: FastifyRequest): Server {
    const server = new Server(
      { name: 'gatehouse-public', title: 'Gatehouse public content', version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions:
          'Published campaigns, petitions, events, jobs, surveys and durbars of the platform (read only). Lists are paged with page and limit.',
      },
    );
    server.setRequestHandler('tools/list', () => ({ tools: LISTED }));
    server.setRequestHandler('tools/call', (request) =>
      this.callTool(req, request.params.name, request.params.arguments ?? {}),
    );
    return server;
  }

  private async callTool(
    req: FastifyRequest,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const validate = this.validators.get(name)!;
    if (!validate(args)) {
      const fields = (validate.errors ?? [])
        .map((e) => `arguments${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`)
        .join('; ');
      return failure('VALIDATION_FAILED', fields, req.id);
    }
    const res = await req.server.inject({
      method: 'GET',
      url: `${PREFIX.public}${tool.path(args)}`,
      remoteAddress: req.ip,
      headers: { accept: 'application/json' },
    });
    const readId = String(res.headers['svc-request-id'] ?? req.id);
    const body = res.json<Record<string, unknown>>();
    if (res.statusCode !== 200) {
      const error = (body.error ?? {}) as { code?: string; message?: string; ref?: string };
      return failure(
        error.code ?? 'INTERNAL_ERROR',
        `${error.message ?? 'The read failed.'}${error.ref ? ` (ref ${error.ref})` : ''}`,
        readId,
      );
    }
    const text = Array.isArray(body.data)
      ? `${body.data.length} ${String(args.kind)} on this page.`
      : name === 'get_durbar_transcript'
        ? `Transcript of ${String(args.slug)}. ${String(body.disclaimer)}`
        : `${String(args.kind).replace(/s$/, '')} ${String(args.slug)}.`;
    return { content: [{ type: 'text', text }], structuredContent: body };
  }
}

function failure(code: string, message: string, requestId: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message} [request ${requestId}]` }],
    structuredContent: { code, message, request_id: requestId },
  };
}
