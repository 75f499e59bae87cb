import type { Scope } from '../platform/scopes';

/**
 * The event catalogue (32 types), the one place a type is registered: each type with the read scope of its
 * object's own endpoint (`visit.*` and `pass.sent` carry a Visit → `visits:read`, `watchlist.matched` a match →
 * `watchlist:read`, `webhook_endpoint.disabled` an endpoint → `webhooks:manage`, …). A credential sees an event
 * of a type on GET /v1/events, GET /v1/events/{id} and redelivery only when it may use that scope too (it holds
 * it, and the person acting, if any, may use it), so `events:read` never reads more than the other scopes do.
 * The spec names 18 types; the other 14 complete the state machines and resources the API exposes
 * (docs/decisions.md). New types may appear at any time; `["*"]` subscriptions receive them, except the types in
 * EXPLICIT_ONLY_EVENT_TYPES.
 */
export const EVENT_CATALOGUE = {
  'visit.created': 'visits:read',
  'visit.updated': 'visits:read',
  'visit.approval_requested': 'visits:read',
  'visit.approved': 'visits:read',
  'visit.denied': 'visits:read',
  'visit.checked_in': 'visits:read',
  'visit.checked_out': 'visits:read',
  'visit.cancelled': 'visits:read',
  'visit.no_show': 'visits:read',
  'pass.sent': 'visits:read',
  'visitor.erased': 'visitors:read',
  'person.created': 'people:read',
  'person.updated': 'people:read',
  'person.deactivated': 'people:read',
  'person.reactivated': 'people:read',
  'delivery.received': 'deliveries:read',
  'delivery.collected': 'deliveries:read',
  'delivery.returned': 'deliveries:read',
  'booking.created': 'bookings:read',
  'booking.confirmed': 'bookings:read',
  'booking.declined': 'bookings:read',
  'booking.expired': 'bookings:read',
  'booking.cancelled': 'bookings:read',
  'booking.rescheduled': 'bookings:read',
  'attendance.clocked_in': 'attendance:read',
  'attendance.clocked_out': 'attendance:read',
  'attendance.late': 'attendance:read',
  'rollcall.started': 'rollcalls:read',
  'rollcall.person_marked': 'rollcalls:read',
  'rollcall.closed': 'rollcalls:read',
  'watchlist.matched': 'watchlist:read',
  'webhook_endpoint.disabled': 'webhooks:manage',
} as const satisfies Record<string, Scope>;

export type EventType = keyof typeof EVENT_CATALOGUE;

/**
 * The `data.object` of each event type, as the type's own endpoint returns it. Events sit below every domain and
 * know none of their classes, so each domain declares its own types here by module augmentation, beside the
 * type's sample (visits/visit.samples.ts: `declare module '../events/event-types' { interface EventObjects {
 * 'visit.created': VisitResponse; … } }`). `EventsService.record` takes only a catalogued type with its object.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the domains' augmentations
export interface EventObjects {}

/** The object an event of `T` carries (`never` for a type no domain declared, so recording it cannot compile). */
export type EventObject<T extends EventType> = T extends keyof EventObjects ? EventObjects[T] : never;

type MustBeNever<T extends never> = T;
/** Compile-time check: each catalogued type has its object declared (declare it beside the type's sample). */
export type TypesWithoutObject = MustBeNever<Exclude<EventType, keyof EventObjects>>;
/** Compile-time check: each declared object is of a catalogued type (register the type in EVENT_CATALOGUE). */
export type ObjectsWithoutType = MustBeNever<Exclude<keyof EventObjects, EventType>>;

type ResourceOf<T extends string> = T extends `${infer R}.${string}` ? R : never;
/** The resource of an event type, the part before the dot: `visit` of visit.created, `pass` of pass.sent. */
export type EventResource = ResourceOf<EventType>;
/** The types of the resources `R`: 'delivery' → delivery.received | delivery.collected | delivery.returned. */
export type EventTypeOf<R extends EventResource> = Extract<EventType, `${R}.${string}`>;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as readonly EventType[];

/** Types delivered only to endpoints that list them: `["*"]` does not cover these (the spec: watchlist.matched). */
export const EXPLICIT_ONLY_EVENT_TYPES: readonly EventType[] = ['watchlist.matched'];

export function isEventType(v: string): v is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, v);
}

/** The scope a credential needs, besides the route's own, to see events of `type`. */
export function eventReadScope(type: EventType): Scope {
  return EVENT_CATALOGUE[type];
}

/** The types whose events a credential that may use `scopes` sees (each type needs its read scope). */
export function readableEventTypes(scopes: ReadonlySet<Scope>): EventType[] {
  return EVENT_TYPES.filter((t) => scopes.has(EVENT_CATALOGUE[t]));
}

/** For the reference: which scope each type needs, e.g. `visits:read` (visit.created, …, pass.sent); …. */
export function eventReadScopesText(): string {
  const byScope = new Map<Scope, EventType[]>();
  for (const t of EVENT_TYPES)
    byScope.set(EVENT_CATALOGUE[t], [...(byScope.get(EVENT_CATALOGUE[t]) ?? []), t]);
  return [...byScope].map(([scope, types]) => `\`${scope}\` (${types.join(', ')})`).join('; ');
}
