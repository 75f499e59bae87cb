import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { Credential } from './credential';
import { historyCutoff, HistoryKind } from './plans';
import { roleAllows, Scope, SCOPES } from './scopes';
import type { Tenant } from './tenant';

function credentialOf(context: ExecutionContext): Credential {
  const credential = context.switchToHttp().getRequest<FastifyRequest>().credential;
  // Only reachable on a route without @Authorize, which the guard chain refuses: a programming error.
  if (!credential) throw new Error('no credential on this request: is the route missing @Authorize?');
  return credential;
}

/** The tenant (organisation and mode) of the request's credential. */
export const CurrentTenant = createParamDecorator((_: unknown, context: ExecutionContext): Tenant => {
  const c = credentialOf(context);
  return { organisationId: c.organisation.id, livemode: c.livemode };
});

/** The request's credential (kind, scopes, publishable, organisation facts). */
export const CurrentCredential = createParamDecorator((_: unknown, context: ExecutionContext) =>
  credentialOf(context),
);

/**
 * Whether the credential may use `scope` beyond the route's own: it holds it, and the person acting, if any (OAuth
 * tokens), has a role that allows it — the guard chain's scope and role steps, as one answer.
 */
export function credentialAllows(c: Credential, scope: Scope): boolean {
  return c.scopes.has(scope) && (c.actingRole === null || roleAllows(c.actingRole, scope));
}

/**
 * The guard chain's scope and role steps for a call that needs `scopes` (a /v1 route needs one; a tool may need
 * several): `scope_missing` (403) when the credential lacks any of them, naming every scope the call needs (the
 * error renderer's `insufficient_scope` challenge lists them all, so a client asks for them at once); then
 * `forbidden` when the person acting (OAuth tokens) has a role that does not allow one of them.
 */
export function requireScopes(c: Credential, scopes: readonly Scope[]): void {
  const lacking = scopes.filter((s) => !c.scopes.has(s));
  if (lacking.length)
    throw new ApiError(
      'scope_missing',
      scopes.length === 1
        ? `This endpoint needs the ${scopes[0]} scope, which the credential lacks.`
        : `This call needs the ${scopes.join(', ')} scopes; the credential lacks ${lacking.join(', ')}.`,
    ).needing(scopes);
  const role = c.actingRole;
  const forbidden = role ? scopes.find((s) => !roleAllows(role, s)) : undefined;
  if (role && forbidden) throw new ApiError('forbidden', `The ${role} role does not allow ${forbidden}.`);
}

/** The scopes the request's credential may use (`credentialAllows`): `@CurrentScopes() scopes: ReadonlySet<Scope>`. */
export const CurrentScopes = createParamDecorator(
  (_: unknown, context: ExecutionContext): ReadonlySet<Scope> => {
    const c = credentialOf(context);
    return new Set(SCOPES.filter((s) => credentialAllows(c, s)));
  },
);

/** Who calls a /v1 route: the tenant, whether with a publishable key, and what the plan shows of history. */
export interface Caller {
  tenant: Tenant;
  publishable: boolean;
  /** The oldest moment a live-mode record is shown, at the request's arrival (null: nothing hidden). */
  hiddenBefore: Date | null;
  /**
   * The credential may see watchlist data (a visit's watchlist flag): it holds `watchlist:read` and the person
   * acting, if any, may read. Never a publishable key (they cannot hold that scope).
   */
  seesWatchlist: boolean;
  /** The organisation's reference version as the credential read it, when it did (`ReferenceCache`). */
  referenceVersion?: string;
}

/**
 * The caller of a route whose records of `kind` (visits, audit entries) are limited by the plan's history window
 * in live mode: `@CurrentCaller('visits') caller: Caller`.
 */
export const CurrentCaller = createParamDecorator((kind: HistoryKind, context: ExecutionContext): Caller => {
  const req = context.switchToHttp().getRequest<FastifyRequest>();
  const c = credentialOf(context);
  const { plan, overrides } = c.organisation;
  return {
    tenant: { organisationId: c.organisation.id, livemode: c.livemode },
    publishable: c.publishable,
    hiddenBefore: historyCutoff(kind, plan, c.livemode, overrides, req.ctx.receivedAt),
    seesWatchlist: !c.publishable && credentialAllows(c, 'watchlist:read'),
    referenceVersion: c.organisation.referenceVersion,
  };
});
