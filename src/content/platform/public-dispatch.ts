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
): Map<string, DirectHandler> {
  const out = new Map<string, DirectHandler>();
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
    out.set(route, (req, reply) => {
      for (const h of headers) void reply.header(h.name, h.value);
      if (code !== undefined) void reply.code(code);
      if (direct) {
        try {
          const values = new Array<unknown>(params.length);
          for (const p of params) {
            const v = ((p.query ? req.query : req.params) as Record<string, unknown>)[p.data!];
            values[p.index] = v === undefined ? v : String(v);
          }
          return Promise.resolve(method.apply(instance, values));
        } catch (e) {
          return Promise.reject(e as Error);
        }
      }
      return piped(req);
    });
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
      }
      return method.apply(instance, values);
    };
  }
  return out;
}
