import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  INestApplicationContext,
  Logger,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors/api-error';
import { controllerRoutes, ControllerRoute, prependGuard, routeMetadata } from '../common/http/route-walk';
import { surfaceOf } from '../common/http/surface';
import type { Role } from '../visitor/platform/scopes';
import { OperatorGuard } from './operator.guard';

/**
 * Who may call a console route, declared on the route (or its controller) by `@ConsoleAuth(...roles)` (signed-in
 * people, optionally of some roles), `@OperatorOnly()` (the operator token) or `@ConsolePublic()` (sign-in). A
 * console route that declares none is refused (deny by default, as /v1), and the route walk test proves every
 * console route declares one.
 */
export type ConsoleAccess =
  { kind: 'people'; roles: Role[] | null } | { kind: 'operator' } | { kind: 'public' };

export const CONSOLE_ACCESS = 'gatehouse:console-access';

export const declareConsoleAccess = (access: ConsoleAccess) => SetMetadata(CONSOLE_ACCESS, access);

/** Support endpoints: `Authorization: Bearer <OPERATOR_TOKEN>`. */
export const OperatorOnly = () =>
  applyDecorators(declareConsoleAccess({ kind: 'operator' }), UseGuards(OperatorGuard));

/** Reachable without signing in (the sign-in page and `POST /console/session`). */
export const ConsolePublic = () => declareConsoleAccess({ kind: 'public' });

export function consoleAccessOf(route: ControllerRoute): ConsoleAccess | undefined {
  return routeMetadata<ConsoleAccess>(route, CONSOLE_ACCESS);
}

const logger = new Logger('ConsoleAccess');

const DENY: CanActivate = {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    logger.error(
      `${req.method} ${req.routeOptions.url} declares no console access: refused (deny by default)`,
    );
    throw new ApiError('forbidden', 'This console endpoint is not available to anyone.');
  },
};

/** Refuses every /console route that declares no access, before the router is built. Returns how many it refused. */
export function guardConsoleRoutes(app: INestApplicationContext): number {
  let refused = 0;
  for (const route of controllerRoutes(app)) {
    if (!route.paths.some((p) => surfaceOf(p) === 'console')) continue;
    if (consoleAccessOf(route)) continue;
    prependGuard(route, DENY);
    refused += 1;
  }
  return refused;
}
