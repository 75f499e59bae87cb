import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { Role } from '../../visitor/platform/scopes';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService, SESSION_COOKIE } from '../../visitor/accounts/accounts.service';
import { declareConsoleAccess } from '../console-access';

const ROLES = 'gatehouse:console-roles';

declare module 'fastify' {
  interface FastifyRequest {
    account?: ConsoleCaller;
  }
}

/** The session token from the `gh_session` cookie (console routes only; /v1 never reads cookies). */
export function sessionToken(req: FastifyRequest): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=') || null;
  }
  return null;
}

@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly accounts: AccountsService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const token = sessionToken(req);
    const account = token ? await this.accounts.session(token) : null;
    if (!account) throw new ApiError('unauthorized', 'Sign in to the console first (POST /console/session).');
    req.account = account;
    req.ctx.organisationId = account.organisation_id;
    req.ctx.credentialId = account.id;
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (roles && !roles.includes(account.role))
      throw new ApiError(
        'forbidden',
        `The ${account.role} role cannot do this; it needs ${roles.join(' or ')}.`,
      );
    return true;
  }
}

/** A console route for signed-in people, optionally limited to some roles. */
export const ConsoleAuth = (...roles: Role[]) =>
  applyDecorators(
    SetMetadata(ROLES, roles.length ? roles : undefined),
    declareConsoleAccess({ kind: 'people', roles: roles.length ? roles : null }),
    UseGuards(ConsoleSessionGuard),
  );

export const CurrentAccount = createParamDecorator((_: unknown, context: ExecutionContext): ConsoleCaller => {
  const account = context.switchToHttp().getRequest<FastifyRequest>().account;
  if (!account) throw new Error('no console account: is the route missing @ConsoleAuth?');
  return account;
});
