import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type AuthInfo,
  type McpHttpHandler,
  type Tool,
} from '@modelcontextprotocol/server';
import Ajv, { type ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiError } from '../common/errors/api-error';
import { visitorCode } from '../common/errors/error-codes';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { AuditService, type AuditEntry } from '../visitor/audit/audit.service';
import type { Credential } from '../visitor/platform/credential';
import { canonical, IdempotencyClaims } from '../visitor/platform/idempotency';
import { planGives } from '../visitor/platform/plans';
import { roleAllows, type Scope } from '../visitor/platform/scopes';
import {
  callToolResult,
  DirectCall,
  DirectCalls,
  jsonRpcError,
  jsonRpcResult,
  SERVER_INFO,
  ToolAnswer,
} from './direct-call';
import { serveMcp } from './http-bridge';
import { Args, ToolSpec, TOOLS } from './tools';
import { V1Operation, V1Operations } from './v1-operations';

/** The request a tool call arrived on (handed to the per-request server through the SDK's `authInfo.extra`). */
interface Call {
  req: FastifyRequest;
  reply: FastifyReply;
}

const INSTRUCTIONS =
  'Gatehouse visitor management for one organisation: sites, people, visits and passes, bookings, deliveries, roll calls, events and attendance. Ids have prefixes (site_, person_, visit_, btype_, booking_, rollcall_). Lists return a page: pass next_cursor as cursor for more.';

const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** What `tools/list` shows of a tool (the same for every credential that may use it). */
const LISTED: ReadonlyMap<string, Tool> = new Map(
  TOOLS.map((t) => [
    t.name,
    {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    } as Tool,
  ]),
);

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A UUID made of a digest's first 16 bytes: the idempotency key of a repeated write. */
function uuidOf(digest: Buffer): string {
  const h = digest.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * The tool server of `{BASE_URL}/mcp` (MCP 2026-07-28, stateless; 2025-revision clients through the SDK's
 * legacy stateless mode at the same endpoint). The credential was resolved and checked by the /v1 guard chain
 * on the route (McpController); here each call is checked against its /v1 operation (scope, role of the person
 * acting, plan in live mode), run through `V1Operations` and answered with the /v1 object or page as structured
 * content and one line of text. A write runs at most once per credential and arguments: its idempotency key is
 * derived from both and kept in the /v1 idempotency store, so a call repeated after a broken stream replays the
 * first answer. Every call is in the audit trail (`mcp.tool_called`: tool, SHA-256 of the arguments, outcome): a
 * write's entry committed before the call answers (concurrent calls share one INSERT, `AuditService.recordGrouped`),
 * a read's written off the call's path within 100 ms (`AuditService.recordSoon`).
 */
@Injectable()
export class McpToolServer implements OnApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private readonly handler: McpHttpHandler;
  private readonly validators: ReadonlyMap<string, ValidateFunction>;
  private readonly toolScopes = new Map<string, readonly Scope[]>();
  private readonly direct = new DirectCalls();
  private closed = false;

  constructor(
    private readonly ops: V1Operations,
    private readonly claims: IdempotencyClaims,
    private readonly audit: AuditService,
    @InjectConfig() private readonly config: Config,
  ) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    this.validators = new Map(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));
    // Default response shaping: one JSON body (no tool emits a notification before its result).
    this.handler = createMcpHandler(({ authInfo, era }) => this.serverFor(authInfo, era === 'modern'), {
      onerror: (e) => this.logger.debug(`MCP request refused: ${e.message}`),
    });
  }

  /**
   * The handler closes after the HTTP server has finished its in-flight requests (Nest closes the server between
   * the destroy and the shutdown hooks): closing it earlier would end a tool call mid-way.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.handler.close();
  }

  /**
   * Answers one HTTP request to /mcp (after the guard chain) with the SDK's handler. A `tools/call` of a tool whose
   * scopes the credential lacks is refused first, before the SDK or the tool reads its arguments: 403
   * `scope_missing`, whose `insufficient_scope` challenge names every scope the tool needs (a client's step-up).
   * A plain 2026-07-28 tools/call of a client the SDK has already served takes the direct path (DirectCalls).
   */
  serve(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const c = req.credential!;
    for (const name of toolCallsOf(req.body)) this.requireToolScopes(c, name);
    const call: Call = { req, reply };
    // A closed handler refuses every request (500); a call reaching a closing server gets that from the SDK too.
    const direct = this.closed ? null : this.direct.match(req, (name) => TOOL_BY_NAME.has(name));
    if (direct) return this.answerDirectly(call, direct);
    return serveMcp(this.handler, this.config.baseUrl, req, reply, {
      token: '',
      clientId: c.id,
      scopes: [...c.scopes],
      extra: { call },
    });
  }

  /**
   * The direct path's answer: the tool run by the same `callTool` as the SDK's handler, written as the SDK writes
   * its JSON-RPC response (200, `application/json`, the same bytes; test/mcp/direct-path.e2e-spec.ts compares them).
   */
  private async answerDirectly(call: Call, d: DirectCall): Promise<void> {
    let payload: string;
    try {
      payload = jsonRpcResult(d.id, await this.callTool(call, d.name, d.args));
    } catch (e) {
      payload = jsonRpcError(d.id, e);
    }
    void call.reply.status(200).header('content-type', 'application/json');
    await call.reply.send(Buffer.from(payload));
  }

  /**
   * A fresh protocol server for one request, serving the tools the request's credential may use. A tools/call it
   * hands to the tool on the modern path has passed the SDK's checks: its client's envelope may take the direct path.
   */
  private serverFor(authInfo: AuthInfo | undefined, modern: boolean): Server {
    const call = authInfo?.extra?.call as Call | undefined;
    if (!call?.req.credential) throw new Error('an MCP request reached the handler without a credential');
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
    });
    server.setRequestHandler('tools/list', () => ({ tools: this.toolsFor(call.req.credential!) }));
    server.setRequestHandler('tools/call', async (request) => {
      if (modern) this.direct.learn(call.req);
      return callToolResult(await this.callTool(call, request.params.name, request.params.arguments ?? {}));
    });
    return server;
  }

  /** The tools a credential may use: every operation of the tool allowed by its scopes, role and plan. */
  toolsFor(c: Credential): Tool[] {
    return TOOLS.filter((t) => t.operations.every((id) => !refusal(c, this.ops.get(id)))).map((t) =>
      LISTED.get(t.name)!,
    );
  }

  /** The scopes a tool needs: those of every operation it may run (what `tools/list` asks of a credential). */
  private scopesOf(tool: ToolSpec): readonly Scope[] {
    let scopes = this.toolScopes.get(tool.name);
    if (!scopes) {
      scopes = [...new Set(tool.operations.map((id) => this.ops.get(id).need.scope as Scope))];
      this.toolScopes.set(tool.name, scopes);
    }
    return scopes;
  }

  /** `scope_missing` (403, an `insufficient_scope` challenge naming all the tool's scopes) when the credential lacks one. */
  private requireToolScopes(c: Credential, name: string): void {
    const tool = TOOL_BY_NAME.get(name);
    if (!tool) return; // the SDK answers an unknown tool
    const scopes = this.scopesOf(tool);
    const lacking = scopes.filter((s) => !c.scopes.has(s));
    if (lacking.length)
      throw new ApiError(
        'scope_missing',
        `The tool ${name} needs the ${scopes.join(', ')} scope${scopes.length > 1 ? 's' : ''}; the credential lacks ${lacking.join(', ')}.`,
      ).needing(scopes);
  }

  private async callTool(call: Call, name: string, args: Args): Promise<ToolAnswer> {
    const tool = TOOL_BY_NAME.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const { req } = call;
    const c = req.credential!;
    const argsDigest = sha256(`${tool.name}\n${canonical(args)}`);
    let outcome = 'ok';
    try {
      return await this.run(call, tool, args);
    } catch (e) {
      const error = this.apiError(e, req, tool);
      outcome = visitorCode(error.code);
      req.ctx.errorCode = outcome;
      return toolError(error, req.id);
    } finally {
      const entry: AuditEntry = {
        organisationId: c.organisation.id,
        livemode: c.livemode,
        action: 'mcp.tool_called',
        actor: { type: c.kind, id: c.id },
        data: {
          tool: tool.name,
          arguments_sha256: argsDigest.toString('hex'),
          outcome,
          ...(c.actingAccountId ? { acting_account_id: c.actingAccountId } : {}),
        },
        request: req,
      };
      // A read is audited off the call's path (written with the others of the next 100 ms); a write's entry is
      // committed before the call answers, as the change it records is.
      if (tool.annotations.readOnlyHint) this.audit.recordSoon(entry);
      else
        await this.audit
          .recordGrouped(entry)
          .catch((e: Error) => this.logger.warn(`${req.id}: could not audit ${tool.name}: ${e.message}`));
    }
  }

  private async run(call: Call, tool: ToolSpec, args: Args): Promise<ToolAnswer> {
    const { req, reply } = call;
    const c = req.credential!;
    // Whether the credential may use the tool at all (role, plan) before what it was asked with: a refusal never
    // depends on the arguments.
    for (const id of tool.operations) {
      const refused = refusal(c, this.ops.get(id));
      if (refused) throw refused;
    }
    const validate = this.validators.get(tool.name)!;
    if (!validate(args))
      throw ApiError.validation(
        (validate.errors ?? []).map((e) => ({
          location: `arguments${e.instancePath.replace(/\//g, '.')}${
            e.keyword === 'required' || e.keyword === 'additionalProperties'
              ? `.${String(e.params.missingProperty ?? e.params.additionalProperty)}`
              : ''
          }`,
          message:
            e.keyword === 'required'
              ? 'is required'
              : e.keyword === 'additionalProperties'
                ? 'is not an argument of this tool'
                : (e.message ?? 'is invalid'),
        })),
      );
    const { operationId, input } = tool.route(args);
    const op = this.ops.get(operationId);
    // The answer twice over: as the /v1 handler returned it (its response class), which the line of text is made
    // from, and as the route's schema writes it (the serializer's whitelist), which is the structured content.
    let value: unknown;
    let body: string;
    if (op.method === 'GET') {
      value = await this.ops.call(op, req, reply, input);
      body = this.ops.serialize(op, reply, value);
    } else {
      // The key is the credential and the arguments: the same write asked for again (a retry after a broken
      // stream) replays the first answer instead of acting twice.
      const digest = sha256(`mcp\n${tool.name}\n${c.kind}:${c.id}\n${canonical(args)}`);
      const done = await this.claims.once(
        {
          tenant: { organisationId: c.organisation.id, livemode: c.livemode },
          key: uuidOf(digest),
          hash: `mcp:${digest.toString('base64url')}`,
          serialize: (v) => this.ops.serialize(op, reply, v),
        },
        async () => (value = await this.ops.call(op, req, reply, input)),
      );
      body = done.body;
      if (done.replayed) value = JSON.parse(body);
    }
    // Every /v1 answer a tool gives is an object (a resource or a page); the protocol's structured content must be.
    if (!value || typeof value !== 'object' || body.charCodeAt(0) !== 0x7b /* { */)
      throw new Error(`${op.operationId} answered with no JSON object`);
    return { isError: false, text: tool.summary(value as Record<string, unknown>, args), json: body };
  }

  private apiError(e: unknown, req: FastifyRequest, tool: ToolSpec): ApiError {
    if (e instanceof ApiError) return e;
    this.logger.error(
      `${req.id}: tool ${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`,
      e instanceof Error ? e.stack : undefined,
    );
    return new ApiError('internal_error', 'An unexpected error occurred. Quote the request id to support.');
  }
}

/** Why a credential may not run an operation (the guard chain's scope, role and plan steps), or null. */
function refusal(c: Credential, op: V1Operation): ApiError | null {
  const { scope, plan } = op.need;
  if (!c.scopes.has(scope))
    return new ApiError('scope_missing', `This tool needs the ${scope} scope, which the credential lacks.`);
  if (c.actingRole && !roleAllows(c.actingRole, scope))
    return new ApiError('forbidden', `The ${c.actingRole} role does not allow ${scope}.`);
  if (!planGives(c, plan ?? 'rest'))
    return new ApiError(
      'plan_required',
      plan === 'webhooks'
        ? `Live events need the Growth plan or higher; this organisation is on ${c.organisation.plan}.`
        : `Live data through the tool server needs the Pro plan or higher; this organisation is on ${c.organisation.plan}. Test mode works on every plan.`,
    );
  return null;
}

/** The names of the tools a JSON-RPC message (or a 2025 client's batch) calls. */
function toolCallsOf(body: unknown): string[] {
  const names: string[] = [];
  for (const m of Array.isArray(body) ? (body as unknown[]) : [body]) {
    const msg = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (msg?.method === 'tools/call' && typeof msg.params?.name === 'string') names.push(msg.params.name);
  }
  return names;
}

/** A domain error as the model reads it: the spec's code, what to do, and the request id for support. */
function toolError(error: ApiError, requestId: string): ToolAnswer {
  const code = visitorCode(error.code);
  const fields = error.errors.map((f) => `${f.location} ${f.message}`).join('; ');
  const structured = { code, detail: error.detail, errors: error.errors, request_id: requestId };
  return {
    isError: true,
    text: `${code}: ${error.detail}${fields && !error.detail.includes(fields) ? ` (${fields})` : ''} [request ${requestId}]`,
    json: JSON.stringify(structured),
    structured,
  };
}
