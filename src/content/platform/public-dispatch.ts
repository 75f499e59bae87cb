import { PipeTransform, Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
  REDIRECT_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type DirectHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A route's direct handler and the controller method it calls (whose metadata says more about the route). */
export interface DirectRoute {
  handler: DirectHandler;
  method: (...args: unknown[]) => unknown;
}

/**
 * Query DTOs the validation pipe made, kept per route by raw query string: the pipe's answer is a function of the
 * query string alone (parse, class-transformer, class-validator: no clock, no state), and running it costs more
 * than the rest of the route's own work. Only successes are kept; at most QUERY_MEMO_MAX per route, the oldest
 * going first, so distinct query strings cannot grow it without bound.
 */
const QUERY_MEMO_MAX = 500;

/** `/public/v1/x/:slug` from a controller path and a method path, without a trailing slash. */
export function joinRoute(...parts: string[]): string {
  return `/${parts.join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/**
 * Direct handlers for a controller's GET methods, by route: the method called straight from the Fastify route
 * with its `@Param()` and `@Query()` arguments run through the validation pipe, and its `@Header()` and
 * `@HttpCode()` applied — what Nest's router would do for such a method, without building an execution context
 * per request. A method that needs more of Nest (guards, interceptors, filters or pipes of its own, a redirect,
 * any other kind of argument) gets no direct handler and stays on Nest's router.
 *
 * Global guards are not run on a direct handler: the only one, VisitorAuthGuard, acts on /v1 routes alone, and
 * only /public/v1 routes are dispatched this way (PublicPipeline runs their credential and rate-limit checks).
 */
export function directHandlers(
  instance: object,
  controller: Type,
  pipe: PipeTransform,
): Map<string, DirectRoute> {
  const out = new Map<string, DirectRoute>();
  const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const enhanced = (target: object) =>
    [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA].some(
      (k) => ((Reflect.getMetadata(k, target) as unknown[] | undefined) ?? []).length > 0,
    );
  if (enhanced(controller)) return out;
  const proto = controller.prototype as Record<string, (...args: unknown[]) => unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor') continue;
    const method = proto[name];
    if (typeof method !== 'function') continue;
    if (Reflect.getMetadata(METHOD_METADATA, method) !== RequestMethod.GET) continue;
    if (enhanced(method) || Reflect.getMetadata(REDIRECT_METADATA, method)) continue;
    const types = (Reflect.getMetadata('design:paramtypes', proto, name) ?? []) as Type[];
    const args = Object.entries(
      (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
        string,
        { index: number; data?: string; pipes?: unknown[] }
      >,
    ).map(([key, a]) => ({ ...a, type: Number(key.split(':')[0]) }));
    const plain = args.every(
      (a) => (a.type === RouteParamtypes.QUERY || a.type === RouteParamtypes.PARAM) && !a.pipes?.length,
    );
    if (!plain || args.length !== method.length) continue;
    const params = args.map((a) => ({
      index: a.index,
      query: a.type === RouteParamtypes.QUERY,
      data: a.data,
      metatype: types[a.index],
    }));
    const headers = (Reflect.getMetadata(HEADERS_METADATA, method) ?? []) as {
      name: string;
      value: string;
    }[];
    const code = Reflect.getMetadata(HTTP_CODE_METADATA, method) as number | undefined;
    const route = joinRoute(base, String(Reflect.getMetadata(PATH_METADATA, method) ?? ''));
    // A named string path or query value is what the validation pipe would pass on (String(value)), so it is
    // taken as is; anything else (a DTO to validate, a number) goes through the pipe.
    const direct = params.every((p) => p.data !== undefined && p.metatype === String);
    // A whole-query DTO next to named string path values (a list route): its DTO is remembered by query string.
    const memoized = params.every((p) =>
      p.metatype === String ? p.data !== undefined : p.query && p.data === undefined,
    );
    const memo = new Map<string, object>();
    const handler: DirectHandler = (req, reply) => {
      for (const h of headers) void reply.header(h.name, h.value);
      if (code !== undefined) void reply.code(code);
      if (direct || memoized) {
        try {
          const values = new Array<unknown>(params.length);
          let missing = false;
          for (const p of params) {
            if (p.data === undefined) {
              const dto = memo.get(queryStringOf(req.url));
              if (dto === undefined) missing = true;
              // A copy: the handler may change its DTO, the remembered one stays as the pipe made it.
              else values[p.index] = copyOf(dto);
              continue;
            }
            const v = ((p.query ? req.query : req.params) as Record<string, unknown>)[p.data];
            values[p.index] = v === undefined ? v : String(v);
          }
          if (!missing) return Promise.resolve(method.apply(instance, values));
        } catch (e) {
          return Promise.reject(e as Error);
        }
      }
      return piped(req);
    };
    out.set(route, { handler, method });
    const piped = async (req: FastifyRequest) => {
      const values = new Array<unknown>(params.length);
      for (const p of params) {
        const source = (p.query ? req.query : req.params) as Record<string, unknown>;
        const raw = p.data === undefined ? source : source[p.data];
        values[p.index] = await pipe.transform(raw, {
          type: p.query ? 'query' : 'param',
          metatype: p.metatype,
          data: p.data,
        });
        if (memoized && p.data === undefined) {
          const key = queryStringOf(req.url);
          if (memo.size >= QUERY_MEMO_MAX && !memo.has(key)) memo.delete(memo.keys().next().value as string);
          memo.set(key, copyOf(values[p.index] as object));
        }
      }
      return method.apply(instance, values);
    };
  }
  return out;
}

/** A shallow copy of a query DTO, of its class (its properties are single values: refuseRepeated). */
const copyOf = (dto: object): object =>
  Object.assign(Object.create(Object.getPrototypeOf(dto) as object) as object, dto);

/** The raw query string of a request URL (after `?`; empty without one). */
const queryStringOf = (url: string): string => {
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
};
