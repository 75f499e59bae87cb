import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../../common/errors/api-error';
import { assertWellFormedQuery, undocumentedParameters } from '../../common/errors/query-string';
import { RateLimitGuard } from '../../common/rate-limit/rate-limit.guard';
import type { Credential } from './credential';
import { authenticate, BearerCredentialGuard } from './bearer.strategy';
import { AUTHORIZE, NO_CREDENTIAL, RouteNeed } from './authorize.decorator';
import { PLAN_RULES, PlanFeature, planGives, ratePerMinute } from './plans';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { DEFAULT_SCOPES, isScope, Scope } from './scopes';
import { requireScopes } from './current';
import { modeName } from './tenant';
import { OpenApiRegistry } from '../../docs/openapi.registry';

declare module 'fastify' {
  interface FastifyRequest {
    credential?: Credential;
  }
}

function ipAllowed(ip: string, list: string[]): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  const block = new BlockList();
  for (const entry of list) {
    const [addr, bits] = entry.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) block.addAddress(addr, type);
    else block.addSubnet(addr, Number(bits), type);
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return (
    block.check(ip, family === 6 ? 'ipv6' : 'ipv4') || (mapped !== null && block.check(mapped[1], 'ipv4'))
  );
}

/** What a call through `VisitorAuthGuard.admit` needs (the tool server's calls). */
export interface Admission {
  /** The scopes the call needs (scope and role steps); empty: none checked here (e.g. a tool list). */
  scopes: readonly Scope[];
  /** The scopes a 401 names in its challenge (default `scopes`; the tool server passes `DEFAULT_SCOPES`). */
  challengeScopes?: readonly string[];
  /** What the plan must give in live mode (default `rest`); null: no plan step here. */
  plan?: PlanFeature | null;
}

/**
 * The one guard chain of /v1, run for every /v1 route from the route's @Authorize options; attached to the
 * routes that declare it by `guardVisitorRoutes` (visitor-routes.ts), never globally.
 */
@Injectable()
export class VisitorAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly bearer: BearerCredentialGuard,
    private readonly rateLimit: RateLimitGuard,
    @InjectConfig() private readonly config: Config,
    private readonly docs: OpenApiRegistry,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    assertWellFormedQuery(req.url);
    const targets = [context.getHandler(), context.getClass()];
    // A route without credential (the OpenAPI document) refuses query parameters it does not document too.
    if (this.reflector.getAllAndOverride<boolean>(NO_CREDENTIAL, targets)) {
      this.refuseQueryWhereNone(req);
      return true;
    }
    const need = this.reflector.getAllAndOverride<RouteNeed | undefined>(AUTHORIZE, targets);
    // Attached only to routes that declare @Authorize or @NoCredential (guardVisitorRoutes).
    if (!need) throw new Error(`${req.method} ${req.routeOptions.url}: VisitorAuthGuard without @Authorize`);

    // 1–2. Header (Bearer only) and credential: the Passport strategy (bearer.strategy.ts) resolves API keys and
    // OAuth access tokens alike, refusing with `unauthorized`.
    // A 401 names the route's scope in its challenge (what a client should ask for). The tool server's route
    // (`scope: null`: each tool call is checked against its own operation's scope) names the default read set.
    const scopes = need.scope === null ? [] : [need.scope];
    try {
      await this.bearer.canActivate(context);
    } catch (e) {
      throw e instanceof ApiError && e.code === 'unauthorized'
        ? e.needing(scopes.length ? scopes : DEFAULT_SCOPES)
        : e;
    }
    const credential = (req as FastifyRequest & { user: Credential }).user;
    await this.admitCredential(req, context.switchToHttp().getResponse<FastifyReply>(), credential, {
      scopes,
      plan: need.plan ?? 'rest',
      publishable: need.publishable === true,
      whenPlanLapsed: need.whenPlanLapsed === true,
    });

    // 10. A route that documents no query parameter refuses every one, as routes with a query DTO and the public
    // surface do (routes with parameters refuse unknown ones in the validation pipe, with their other errors).
    this.refuseQueryWhereNone(req);
    return true;
  }

  /**
   * The guard chain outside Nest's router, for the tool server (`/mcp`): the credential (`authenticate`, its 401
   * naming `challengeScopes`), then steps 3–9 as for a /v1 route — mode and request context, IP allow-list, the
   * organisation's rate limit (the same allowance as /v1), the plan (`plan`; null skips it, for a surface that
   * reports the plan itself), no publishable key, and `scopes` with the acting person's role. Returns the
   * credential, also left on `req.credential`.
   */
  async admit(req: FastifyRequest, reply: FastifyReply, need: Admission): Promise<Credential> {
    const credential = await authenticate(req, need.challengeScopes ?? need.scopes);
    await this.admitCredential(req, reply, credential, {
      scopes: need.scopes,
      plan: need.plan === undefined ? 'rest' : need.plan,
      publishable: false,
      whenPlanLapsed: false,
    });
    return credential;
  }

  /** Steps 3–9 of the chain for a resolved credential. */
  private async admitCredential(
    req: FastifyRequest,
    reply: FastifyReply,
    credential: Credential,
    need: {
      scopes: readonly Scope[];
      plan: PlanFeature | null;
      publishable: boolean;
      whenPlanLapsed: boolean;
    },
  ): Promise<void> {
    // 3. Mode: the credential decides it; every tenant query filters on it from here on.
    const org = credential.organisation;
    Object.assign(req.ctx, {
      organisationId: org.id,
      credentialId: credential.id,
      livemode: credential.livemode,
    });
    req.credential = credential;

    // 4. Enterprise IP allow-list (an empty list allows every address).
    if (PLAN_RULES[org.plan].ipAllowList && org.ipAllowList.length > 0 && !ipAllowed(req.ip, org.ipAllowList))
      throw new ApiError(
        'forbidden',
        `Requests from ${req.ip} are not on this organisation's IP allow-list.`,
      );

    // 5. Rate limit, per organisation and mode, shared by all its credentials. A plan without live API access
    // reaches only the routes that stay open when the plan lapsed; they get the test-mode allowance.
    // A request the plan refuses where the plan has no allowance is refused without counting, so it carries no
    // RateLimit headers (an allowance the plan does not have).
    const testRate = this.config.testModeRatePerMinute;
    const allowance = ratePerMinute(org.plan, credential.livemode, org.overrides, testRate);
    const planRefusal =
      need.plan === null ? null : this.planRefusal(credential, { ...need, plan: need.plan });
    if (planRefusal && allowance === null) throw planRefusal;
    req.ctx.rateLimit = {
      bucket: `v1:${org.id}:${modeName(credential.livemode)}`,
      limit: allowance ?? testRate,
      windowMs: 60_000,
    };
    await this.rateLimit.count(reply, req.ctx.rateLimit);

    // 6. Plan access table (live mode only; test mode has every endpoint on every plan).
    if (planRefusal) throw planRefusal;

    // 7. Publishable keys: only the routes that allow them.
    if (credential.publishable && !need.publishable)
      throw new ApiError(
        'forbidden',
        'A publishable key cannot call this endpoint; use a secret key on your server.',
      );

    // 8–9. Scope, then the role of the person acting, if any (OAuth tokens).
    for (const scope of need.scopes) if (!isScope(scope)) throw new Error(`unknown scope ${scope as string}`);
    requireScopes(credential, need.scopes);
  }

  /** The plan table's refusal of this request (live mode only; test mode has every endpoint on every plan). */
  private planRefusal(
    credential: Credential,
    need: { plan: PlanFeature; publishable: boolean; whenPlanLapsed: boolean },
  ): ApiError | null {
    const { plan } = credential.organisation;
    // A live publishable key is checked first, so its refusal names the rule that applies to it.
    if (credential.publishable && credential.livemode && !PLAN_RULES[plan].livePublishable)
      return new ApiError(
        'plan_required',
        `Live publishable keys calling the API directly need the Pro or Enterprise plan; this organisation is on ${plan}.`,
      );
    const feature = need.plan;
    if (!planGives(credential, feature) && !need.whenPlanLapsed)
      return new ApiError(
        'plan_required',
        feature === 'webhooks'
          ? `Live webhook endpoints and events need the Growth plan or higher; this organisation is on ${plan}.`
          : `The live REST API needs the Pro plan or higher; this organisation is on ${plan}. Test mode works on every plan.`,
      );
    return null;
  }

  private refuseQueryWhereNone(req: FastifyRequest): void {
    if (req.url.indexOf('?') === -1) return;
    const names = Object.keys((req.query as Record<string, unknown> | undefined) ?? {});
    if (!names.length) return;
    const documented = this.docs.queryParameters('visitor', req.method, req.routeOptions.url ?? '');
    if (documented?.size === 0) throw undocumentedParameters(names);
  }
}
