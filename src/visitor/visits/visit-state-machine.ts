import { ApiError } from '../../common/errors/api-error';
import type { EventTypeOf } from '../events/event-types';

/** Visit statuses: the four the spec names plus the three it leaves open (docs/decisions.md). */
export const VISIT_STATUSES = [
  'expected',
  'awaiting_approval',
  'checked_in',
  'checked_out',
  'cancelled',
  'denied',
  'no_show',
] as const;
export type VisitStatus = (typeof VISIT_STATUSES)[number];

export type VisitAction = 'check_in' | 'approve' | 'deny' | 'check_out' | 'cancel' | 'no_show';

export interface TransitionContext {
  /** The visit's site requires the host to approve a check-in. */
  siteRequiresApproval: boolean;
}

export interface Transition {
  to: VisitStatus;
  /** Events recorded with the change, in order, each carrying the visit as GET returns it afterwards. */
  events: EventTypeOf<'visit'>[];
  /** Timestamp columns the transition sets. */
  sets: ('checked_in_at' | 'checked_out_at' | 'cancelled_at' | 'decided_at')[];
}

interface Rule {
  from: readonly VisitStatus[];
  apply(ctx: TransitionContext): Transition;
}

/** The one transition table of a visit. Anything not listed is `invalid_state`. */
export const VISIT_TRANSITIONS: Record<VisitAction, Rule> = {
  check_in: {
    from: ['expected'],
    apply: (ctx) =>
      ctx.siteRequiresApproval
        ? { to: 'awaiting_approval', events: ['visit.approval_requested'], sets: [] }
        : { to: 'checked_in', events: ['visit.checked_in'], sets: ['checked_in_at'] },
  },
  approve: {
    from: ['awaiting_approval'],
    apply: () => ({
      to: 'checked_in',
      events: ['visit.approved', 'visit.checked_in'],
      sets: ['decided_at', 'checked_in_at'],
    }),
  },
  deny: {
    from: ['awaiting_approval'],
    apply: () => ({ to: 'denied', events: ['visit.denied'], sets: ['decided_at'] }),
  },
  check_out: {
    from: ['checked_in'],
    apply: () => ({ to: 'checked_out', events: ['visit.checked_out'], sets: ['checked_out_at'] }),
  },
  cancel: {
    from: ['expected'],
    apply: () => ({ to: 'cancelled', events: ['visit.cancelled'], sets: ['cancelled_at'] }),
  },
  no_show: { from: ['expected'], apply: () => ({ to: 'no_show', events: ['visit.no_show'], sets: [] }) },
};

const VERB: Record<VisitAction, string> = {
  check_in: 'checked in',
  approve: 'approved',
  deny: 'denied',
  check_out: 'checked out',
  cancel: 'cancelled',
  no_show: 'marked as a no-show',
};

/** The transition for `action` from `status`, or `invalid_state` naming the statuses that allow it. */
export function transition(status: VisitStatus, action: VisitAction, ctx: TransitionContext): Transition {
  const rule = VISIT_TRANSITIONS[action];
  if (!rule.from.includes(status)) {
    throw new ApiError(
      'invalid_state',
      `A visit in status ${status} cannot be ${VERB[action]}; only a visit in status ${rule.from.join(' or ')} can.`,
    );
  }
  return rule.apply(ctx);
}
