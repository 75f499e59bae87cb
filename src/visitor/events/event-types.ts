/**
 * The event catalogue (30 types). The spec names 18; the other 12 complete the state machines and resources
 * the API exposes (docs/decisions.md). New types may appear at any time; `["*"]` subscriptions receive them.
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
  'rollcall.closed',
  'watchlist.matched',
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(v: string): v is EventType {
  return (EVENT_TYPES as readonly string[]).includes(v);
}
