import { isJsonContentType } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { Args } from './tools';

/** The revision the direct path answers (the SDK's modern revision as the v2 client sends it). */
const REVISION = '2026-07-28';
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
/** The keys of a JSON-RPC request (the SDK's schema is strict) and of `tools/call` params without extensions. */
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
/** Distinct envelopes remembered; a client sends the same one on every call, so this bounds only the odd ones. */
const MAX_ENVELOPES = 1000;

/** The server's name as every answer's `_meta` carries it (the SDK stamps it on results at 2026-07-28). */
export const SERVER_INFO = { name: 'gatehouse', title: 'Gatehouse', version: '1.0.0' } as const;
const RESULT_META = JSON.stringify({ [SERVER_INFO_META]: SERVER_INFO });

/** One line for the model and the structured content as JSON text (and as the object, when it was built as one). */
export interface ToolAnswer {
  isError: boolean;
  text: string;
  json: string;
  structured?: Record<string, unknown>;
}

/** A tools/call the direct path may answer: the JSON-RPC id, the tool and its arguments. */
export interface DirectCall {
  id: string | number;
  name: string;
  args: Args;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The direct path of `/mcp` (docs/decisions.md): a single `tools/call` of revision 2026-07-28 whose headers agree
 * with its body, from a client whose `_meta` envelope the SDK has already accepted on a call it served, is answered
 * without the SDK's per-request server, transport, schema passes and web `Response`: the tool runs through the same
 * `callTool` (registry, checks, audit, result builders) and the answer is the JSON-RPC response the SDK writes for
 * it. Anything else — initialize, tools/list, server/discover, batches, 2025 clients, notifications, an unknown tool,
 * an envelope not yet seen, anything malformed or unusual — goes to the SDK, which stays the judge of what is valid:
 * the direct path only takes what it has seen the SDK accept.
 */
export class DirectCalls {
  /** `_meta` envelopes (as JSON text) of tools/calls the SDK served on the modern path, so passed its checks. */
  private readonly envelopes = new Set<string>();

  /** The call, when the direct path may answer this request (`known`: whether the tool exists). */
  match(req: FastifyRequest, known: (name: string) => boolean): DirectCall | null {
    const shape = shapeOf(req);
    if (!shape || !known(shape.call.name) || !this.envelopes.has(shape.envelope)) return null;
    return shape.call;
  }

  /** Remembers the envelope of a tools/call the SDK has accepted on the modern path and handed to the tool. */
  learn(req: FastifyRequest): void {
    const shape = shapeOf(req);
    if (!shape) return;
    if (this.envelopes.size >= MAX_ENVELOPES) this.envelopes.clear();
    this.envelopes.add(shape.envelope);
  }
}

/**
 * The call and its envelope when the request is a plain tools/call of REVISION: POST with a JSON content type, one
 * JSON-RPC request of exactly the request's keys, params of only name, arguments (an object) and `_meta` naming
 * REVISION; `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` equal to the body's (a Base64-encoded name is left
 * to the SDK). Null otherwise.
 */
function shapeOf(req: FastifyRequest): { call: DirectCall; envelope: string } | null {
  const h = req.headers;
  if (req.method !== 'POST' || !isJsonContentType(h['content-type'] ?? null)) return null;
  if (h['mcp-protocol-version'] !== REVISION || h['mcp-method'] !== 'tools/call') return null;
  const m = req.body;
  if (!isPlainObject(m) || m.jsonrpc !== '2.0' || m.method !== 'tools/call') return null;
  for (const k in m) if (!MESSAGE_KEYS.has(k)) return null;
  const id = m.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  const p = m.params;
  if (!isPlainObject(p)) return null;
  for (const k in p) if (!PARAM_KEYS.has(k)) return null;
  const { name, arguments: args, _meta: meta } = p;
  if (typeof name !== 'string' || name.startsWith('=?') || h['mcp-name'] !== name) return null;
  if (args !== undefined && !isPlainObject(args)) return null;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META] !== REVISION) return null;
  return { call: { id: id as string | number, name, args: args ?? {} }, envelope: JSON.stringify(meta) };
}

/** A tool's answer as the SDK gives it to its result checks (content, structured content, isError). */
export function callToolResult(a: ToolAnswer): {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
} {
  const content = [{ type: 'text' as const, text: a.text }];
  const structuredContent = a.structured ?? (JSON.parse(a.json) as Record<string, unknown>);
  return a.isError ? { isError: true, content, structuredContent } : { content, structuredContent };
}

/**
 * The JSON-RPC response the SDK writes for a tool's answer at REVISION (its result stamped `resultType: complete`
 * and the server's info in `_meta`), with the structured content's JSON text put in as it is, not re-serialised.
 */
export function jsonRpcResult(id: string | number, a: ToolAnswer): string {
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(a.text)}}],"structuredContent":${a.json}${
    a.isError ? ',"isError":true' : ''
  },"resultType":"complete","_meta":${RESULT_META}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The JSON-RPC error response the SDK writes for an error a request handler threw (its code mapping included). */
export function jsonRpcError(id: string | number, e: unknown): string {
  const err = (e ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const thrown = Number.isSafeInteger(err.code) ? (err.code as number) : -32603;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: thrown === -32002 ? -32602 : thrown,
      message: err.message ?? 'Internal error',
      ...(err.data !== undefined ? { data: err.data } : {}),
    },
  });
}
