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
import type { Plan } from '../../visitor/platform/plans';
import type { Role } from '../../visitor/platform/scopes';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AccountsService, SESSION_COOKIE } from '../../visitor/accounts/accounts.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import type { Tenant } from '../../visitor/platform/tenant';
import { declareConsoleAccess } from '../console-access';
import { cookieValue, resolveLivemode } from '../console-mode';

const ROLES = 'gatehouse:console-roles';

declare module 'fastify' {
  interface FastifyRequest {
    account?: ConsoleCaller;
    /** The signed-in person's organisation in the mode this request works on (`resolveLivemode`). */
    consoleTenant?: ConsoleTenantOf;
  }
}

/** The organisation and mode a console request works on, with the organisation's name and plan. */
export type ConsoleTenantOf = Tenant & { organisationName: string; plan: Plan };

/** The session token from the `gh_session` cookie (console routes only; /v1 never reads cookies). */
export const sessionToken = (req: FastifyRequest): string | null => cookieValue(req, SESSION_COOKIE);

@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly accounts: AccountsService,
    private readonly organisations: OrganisationsService,
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
    const org = await this.organisations.organisation(account.organisation_id);
    req.consoleTenant = {
      organisationId: org.id,
      livemode: resolveLivemode(req, org.plan),
      organisationName: org.name,
      plan: org.plan,
    };
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

/**
 * The organisation and mode a console route works on — `{organisationId, livemode}` (plus the organisation's name
 * and plan) — resolved once per request by the session guard from `?mode`, the live/test switch and the plan.
 */
export const ConsoleTenant = createParamDecorator(
  (_: unknown, context: ExecutionContext): ConsoleTenantOf => {
    const tenant = context.switchToHttp().getRequest<FastifyRequest>().consoleTenant;
    if (!tenant) throw new Error('no console tenant: is the route missing @ConsoleAuth?');
    return tenant;
  },
);
