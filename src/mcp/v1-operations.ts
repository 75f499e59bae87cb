import { INestApplicationContext, Injectable, PipeTransform, Type } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common/enums/request-method.enum';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiValidationPipe } from '../common/errors/validation.pipe';
import { controllerRoutes, routeMetadata } from '../common/http/route-walk';
import { ResponseSchemas } from '../docs/response-schemas';
import { OpenApiRegistry } from '../docs/openapi.registry';
import { AUTHORIZE, AuthorizeOptions } from '../visitor/platform/authorize.decorator';

/** `@ApiOperation`'s metadata key (@nestjs/swagger does not export its constants). */
const API_OPERATION = 'swagger/apiOperation';

type Json = Record<string, unknown>;

/** One argument of a /v1 handler, as Nest's own route-parameter metadata declares it. */
interface Arg {
  index: number;
  kind: 'body' | 'query' | 'param' | 'request' | 'custom';
  data: string | undefined;
  metatype: Type | undefined;
  pipes: PipeTransform[];
  factory?: (data: unknown, ctx: ExecutionContextHost) => unknown;
}

/** A /v1 operation by its `operationId`: the controller method the route runs, with what the route needs. */
export interface V1Operation {
  operationId: string;
  method: string;
  /** `/v1/visits/:visit_id` */
  path: string;
  need: AuthorizeOptions;
  type: Type;
  handler: (...args: unknown[]) => unknown;
  instance: object;
  args: Arg[];
  /** The route's documented 2xx answer, as Fastify's serializer writes it (null: none documented). */
  responseSchema: Json | null;
}

/** What a tool hands to an operation: path parameters, query parameters, body (as a /v1 client would send them). */
export interface V1Input {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

const KINDS: Partial<Record<number, Arg['kind']>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'param',
  [RouteParamtypes.REQUEST]: 'request',
};

/**
 * The /v1 operations, callable in process by their `operationId`: the tool server's one way to the visitor
 * domains. A call runs the very controller method the /v1 route runs, with the route's own arguments — its
 * custom parameter decorators (`@CurrentCaller`, `@CurrentTenant`, …) read the credential the guard chain put on
 * the request — validated by the same `ApiValidationPipe` (so a bad argument is the same `validation_failed`), and
 * its answer written by the route's documented response schema (the same whitelist as Fastify's serializer).
 * Nothing about a domain is repeated here.
 */
@Injectable()
export class V1Operations {
  private byId: Map<string, V1Operation> | null = null;
  private readonly pipe = new ApiValidationPipe();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly docs: OpenApiRegistry,
  ) {}

  get(operationId: string): V1Operation {
    const op = this.all().get(operationId);
    if (!op) throw new Error(`no /v1 operation ${operationId}`);
    return op;
  }

  private all(): Map<string, V1Operation> {
    if (this.byId) return this.byId;
    const schemas = new ResponseSchemas({
      public: this.docs.get('public'),
      visitor: this.docs.get('visitor'),
    });
    const app = {
      get: (t: Type) => this.moduleRef.get(t, { strict: false }),
    } as unknown as INestApplicationContext;
    const byId = new Map<string, V1Operation>();
    for (const route of controllerRoutes(app)) {
      const path = route.paths.find((p) => p.startsWith('/v1/'));
      const need = routeMetadata<AuthorizeOptions>(route, AUTHORIZE);
      const operationId = (Reflect.getMetadata(API_OPERATION, route.handler) as { operationId?: string })
        ?.operationId;
      if (!path || !need || !operationId) continue;
      const name = Object.getOwnPropertyNames(route.type.prototype).find(
        (n) => (route.type.prototype as Record<string, unknown>)[n] === route.handler,
      )!;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, route.handler) as number];
      byId.set(operationId, {
        operationId,
        method,
        path,
        need,
        type: route.type,
        handler: route.handler as (...args: unknown[]) => unknown,
        instance: this.moduleRef.get(route.type, { strict: false }) as object,
        args: argsOf(route.type, name),
        responseSchema: schemas.schemaOf(method, path),
      });
    }
    this.byId = byId;
    return byId;
  }

  /** Runs the operation's handler for the request's credential with these arguments; its answer as /v1 gives it. */
  async call(op: V1Operation, req: FastifyRequest, reply: FastifyReply, input: V1Input): Promise<unknown> {
    const ctx = new ExecutionContextHost([req, reply, undefined], op.type, op.handler);
    ctx.setType('http');
    const args: unknown[] = [];
    for (const a of op.args) {
      if (a.kind === 'custom') {
        args[a.index] = a.factory!(a.data, ctx);
        continue;
      }
      if (a.kind === 'request') {
        args[a.index] = req;
        continue;
      }
      let value: unknown =
        a.kind === 'body'
          ? (input.body ?? {})
          : a.kind === 'query'
            ? a.data === undefined
              ? asQuery(input.query)
              : asQuery(input.query)[a.data]
            : input.path?.[a.data ?? ''];
      for (const pipe of [...a.pipes, this.pipe])
        value = await pipe.transform(value, { type: a.kind, metatype: a.metatype, data: a.data });
      args[a.index] = value;
    }
    return op.handler.apply(op.instance, args);
  }

  /** The answer as the /v1 route would send it: written by its documented 2xx schema (the serializer's whitelist). */
  serialize(op: V1Operation, reply: FastifyReply, result: unknown): string {
    if (!op.responseSchema) return JSON.stringify(result);
    return reply.serializeInput(result as Record<string, unknown>, op.responseSchema) as string;
  }

  /** The HTTP status the route answers with on success. */
  static statusOf(op: V1Operation): number {
    return (
      (Reflect.getMetadata(HTTP_CODE_METADATA, op.handler) as number | undefined) ??
      (op.method === 'POST' ? 201 : 200)
    );
  }
}

/** Query parameters as a query string would carry them: every value a string (numbers and booleans written out). */
function asQuery(query: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null) out[k] = typeof v === 'string' ? v : String(v);
  return out;
}

function argsOf(type: Type, method: string): Arg[] {
  const meta = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, method) ?? {}) as Record<
    string,
    {
      index: number;
      data?: string;
      pipes?: PipeTransform[];
      factory?: (data: unknown, ctx: ExecutionContextHost) => unknown;
    }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', type.prototype, method) ?? []) as Type[];
  return Object.entries(meta).map(([key, m]) => {
    const kind: Arg['kind'] | undefined = key.includes(CUSTOM_ROUTE_ARGS_METADATA)
      ? 'custom'
      : KINDS[Number(key.split(':')[0])];
    if (!kind) throw new Error(`${type.name}.${method}: parameter ${key} cannot be given by a tool`);
    return {
      index: m.index,
      kind,
      data: m.data,
      metatype: types[m.index],
      pipes: (m.pipes ?? []).filter((p): p is PipeTransform => typeof p?.transform === 'function'),
      factory: m.factory,
    };
  });
}
