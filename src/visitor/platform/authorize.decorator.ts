import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { PLAN_RULES, PLANS, PlanFeature } from './plans';
import type { Scope } from './scopes';

export const AUTHORIZE = 'gatehouse:authorize';
export const NO_CREDENTIAL = 'gatehouse:no-credential';

export interface AuthorizeOptions {
  /** The scope the route needs (`scope_missing` names it). */
  scope: Scope;
  /** What the plan must give in live mode: the full REST API (default) or only webhooks and events. */
  plan?: PlanFeature;
  /** Publishable keys may call this route (default false: `forbidden`). */
  publishable?: boolean;
  /**
   * The route stays callable in live mode when the plan lacks `plan` (an organisation whose plan lost webhooks
   * may still read, disable and delete what it has). The handler decides what a lapsed plan may do, with
   * `planGives(credential, feature)`.
   */
  whenPlanLapsed?: boolean;
}

/**
 * What a route run by the guard chain needs. `scope: null` is the tool server's route (`/mcp`, src/mcp): one
 * HTTP route carries many calls, each checked against its own /v1 operation's scope, role and plan there.
 */
export type RouteNeed = Omit<AuthorizeOptions, 'scope'> & { scope: Scope | null };

/**
 * What a /v1 route needs, in one place. `guardVisitorRoutes` attaches the guard chain (VisitorAuthGuard) and
 * idempotency to the route at start-up; the chain then checks, in order:
 * `Authorization: Bearer` → credential → mode → IP allow-list → rate limit → plan → publishable key → scope →
 * role of the person acting. A /v1 route without this decorator (or @NoCredential) is refused: deny by default.
 * Every POST route also needs `Idempotency-Key` (IdempotencyInterceptor); the document builder documents it.
 */
export function Authorize(options: AuthorizeOptions): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(AUTHORIZE, options),
    ApiBearerAuth(),
    ApiExtension('x-required-scope', options.scope),
    // The plans whose live mode may call the route (test mode: every plan); the reference shows both.
    ApiExtension(
      'x-required-plan',
      PLANS.filter((p) => PLAN_RULES[p].live.includes(options.plan ?? 'rest')),
    ),
    ApiExtension('x-publishable-key', options.publishable === true),
    // Read (and removed) by the document builder: such a route answers `plan_required` only where it says so.
    ...(options.whenPlanLapsed ? [ApiExtension('x-when-plan-lapsed', true)] : []),
  );
}

/**
 * Marks a /v1 route that needs no credential (the OpenAPI document). `x-no-credential` tells the document builder,
 * which removes it: a route with neither this nor @Authorize is documented as refused (`forbidden`).
 */
export const NoCredential = () =>
  applyDecorators(SetMetadata(NO_CREDENTIAL, true), ApiExtension('x-no-credential', true));
