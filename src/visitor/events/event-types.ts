/**
 * The event catalogue (32 types). The spec names 18; the other 14 complete the state machines and resources
 * the API exposes (docs/decisions.md). New types may appear at any time; `["*"]` subscriptions receive them,
 * except the types in EXPLICIT_ONLY_EVENT_TYPES.
 */
export const EVENT_TYPES = [
  'visit.created',
  'visit.updated',
  'visit.approval_requested',
  'visit.approved',
  'visit.denied',
  'visit.checked_in',
  'visit.checked_out',
  'visit.cancelled',
  'visit.no_show',
  'pass.sent',
  'visitor.erased',
  'person.created',
  'person.updated',
  'person.deactivated',
  'person.reactivated',
  'delivery.received',
  'delivery.collected',
  'delivery.returned',
  'booking.created',
  'booking.confirmed',
  'booking.declined',
  'booking.expired',
  'booking.cancelled',
  'booking.rescheduled',
  'attendance.clocked_in',
  'attendance.clocked_out',
  'attendance.late',
  'rollcall.started',
  'rollcall.person_marked',
  'rollcall.closed',
  'watchlist.matched',
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Types delivered only to endpoints that list them: `["*"]` does not cover these (the spec: watchlist.matched). */
export const EXPLICIT_ONLY_EVENT_TYPES: readonly EventType[] = ['watchlist.matched'];

export function isEventType(v: string): v is EventType {
  return (EVENT_TYPES as readonly string[]).includes(v);
}
