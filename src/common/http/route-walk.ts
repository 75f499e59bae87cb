import type { CanActivate, INestApplicationContext, Type } from '@nestjs/common';
import { GUARDS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

export interface ControllerRoute {
  /** The controller class. */
  type: Type;
  /** The handler function (where route metadata such as guards lives). */
  handler: object;
  /** Its full paths (`/console/api-keys/:key_id/revoke`), one per controller and method path pair. */
  paths: string[];
}

const paths = (p: unknown): string[] => (Array.isArray(p) ? p.map(String) : [String(p ?? '')]);
const join = (a: string, b: string) =>
  `/${[a, b]
    .map((s) => s.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** Every route of every controller of the application, before the router is built. */
export function* controllerRoutes(app: INestApplicationContext): Generator<ControllerRoute> {
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as Type | null;
      if (!type) continue;
      const bases = paths(Reflect.getMetadata(PATH_METADATA, type));
      for (const name of scanner.getAllMethodNames(type.prototype)) {
        const handler = (type.prototype as Record<string, object>)[name];
        const own = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
        if (own === undefined) continue;
        yield { type, handler, paths: bases.flatMap((b) => paths(own).map((p) => join(b, p))) };
      }
    }
  }
}

/** Metadata of a route: the handler's own, else its controller's. */
export function routeMetadata<T>(route: ControllerRoute, key: string | symbol): T | undefined {
  return (Reflect.getMetadata(key, route.handler) ?? Reflect.getMetadata(key, route.type)) as T | undefined;
}

/** Puts `first` at the front of a route's list under `key` (guards, interceptors), once. */
export function prependRouteMetadata(route: ControllerRoute, key: string, first: unknown): void {
  const now = (Reflect.getMetadata(key, route.handler) as unknown[] | undefined) ?? [];
  if (!now.includes(first)) Reflect.defineMetadata(key, [first, ...now], route.handler);
}

/** Refuses a route before any of its own guards (deny by default). */
export function prependGuard(route: ControllerRoute, guard: CanActivate): void {
  prependRouteMetadata(route, GUARDS_METADATA, guard);
}
