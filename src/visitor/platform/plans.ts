/**
 * The plan access table of the visitor spec, plus the values it leaves open (recorded in docs/decisions.md).
 * Live-mode access per plan: none (Free, Starter), webhook endpoints and events (Growth), the full REST API
 * (Pro, Enterprise). Test mode gives every endpoint on every plan.
 */
export const PLANS = ['free', 'starter', 'growth', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** What a route needs from the plan in live mode: the whole REST API, or only the webhook/event routes. */
export type PlanFeature = 'rest' | 'webhooks';

export interface PlanRules {
  /** Route features callable in live mode. */
  live: readonly PlanFeature[];
  /** Live requests per minute per organisation (null: no live API). */
  liveRatePerMinute: number | null;
  /** Visitor history shown in live mode, in days (null: unlimited / as agreed). */
  historyDays: number | null;
  /** Audit-trail period in days. */
  auditDays: number | null;
  /** Maximum people who can host (live mode); null: unlimited. */
  maxHosts: number | null;
  customScopes: boolean;
  ipAllowList: boolean;
  /** Live publishable keys may call the API directly. */
  livePublishable: boolean;
}

const YEAR = 365;
export const PLAN_RULES: Record<Plan, PlanRules> = {
  free: {
    live: [],
    liveRatePerMinute: null,
    historyDays: 30,
    auditDays: 7,
    maxHosts: 5,
    customScopes: false,
    ipAllowList: false,
    livePublishable: false,
  },
  starter: {
    live: [],
    liveRatePerMinute: null,
    historyDays: 90,
    auditDays: 30,
    maxHosts: 25,
    customScopes: false,
    ipAllowList: false,
    livePublishable: false,
  },
  growth: {
    live: ['webhooks'],
    liveRatePerMinute: 100,
    historyDays: YEAR,
    auditDays: 90,
    maxHosts: 100,
    customScopes: false,
    ipAllowList: false,
    livePublishable: false,
  },
  pro: {
    live: ['webhooks', 'rest'],
    liveRatePerMinute: 600,
    historyDays: 5 * YEAR,
    auditDays: YEAR,
    maxHosts: 1000,
    customScopes: false,
    ipAllowList: false,
    livePublishable: true,
  },
  enterprise: {
    live: ['webhooks', 'rest'],
    liveRatePerMinute: 3000,
    historyDays: null,
    auditDays: null,
    maxHosts: null,
    customScopes: true,
    ipAllowList: true,
    livePublishable: true,
  },
};

export const TEST_RATE_PER_MINUTE = 100;

export function isPlan(v: unknown): v is Plan {
  return typeof v === 'string' && (PLANS as readonly string[]).includes(v);
}

/** Organisation-level overrides (Enterprise agreements) on top of the plan's rules. */
export interface PlanOverrides {
  ratePerMinute: number | null;
  historyDays: number | null;
  auditDays: number | null;
}

/** `testRate`: the test-mode allowance (TEST_MODE_RATE_PER_MINUTE, 100 as the spec says unless configured). */
export function ratePerMinute(
  plan: Plan,
  livemode: boolean,
  o: PlanOverrides,
  testRate = TEST_RATE_PER_MINUTE,
): number | null {
  if (!livemode) return testRate;
  const base = PLAN_RULES[plan].liveRatePerMinute;
  return base === null ? null : (o.ratePerMinute ?? base);
}

/**
 * The oldest moment a live-mode record of this kind is shown (null: nothing hidden). Test mode hides nothing.
 * Enterprise windows are "as agreed": the organisation's override, else unlimited.
 */
/** Records whose live-mode history a plan limits. */
export type HistoryKind = 'visits' | 'audit';

export function historyCutoff(
  kind: HistoryKind,
  plan: Plan,
  livemode: boolean,
  o: PlanOverrides,
  now: Date,
): Date | null {
  if (!livemode) return null;
  const days =
    kind === 'visits'
      ? (o.historyDays ?? PLAN_RULES[plan].historyDays)
      : (o.auditDays ?? PLAN_RULES[plan].auditDays);
  return days === null ? null : new Date(now.getTime() - days * 86_400_000);
}

/** Whether the credential's plan gives `feature` in its mode (test mode gives every feature on every plan). */
export function planGives(
  c: { livemode: boolean; organisation: { plan: Plan } },
  feature: PlanFeature,
): boolean {
  return !c.livemode || PLAN_RULES[c.organisation.plan].live.includes(feature);
}
