/** Every scope of the visitor spec's scopes table. */
export const SCOPES = [
  'organisation:read',
  'sites:read',
  'people:read',
  'people:write',
  'visits:read',
  'visits:write',
  'visitors:read',
  'visitors:delete',
  'deliveries:read',
  'deliveries:write',
  'bookings:read',
  'bookings:write',
  'attendance:read',
  'attendance:write',
  'attendance:manage',
  'watchlist:read',
  'watchlist:write',
  'rollcalls:read',
  'rollcalls:write',
  'webhooks:manage',
  'events:read',
  'audit:read',
  'forms:read',
  'files:read',
  'files:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(v: unknown): v is Scope {
  return typeof v === 'string' && (SCOPES as readonly string[]).includes(v);
}

/**
 * What an OAuth client that asks for no scope is offered (docs/decisions.md): a small read set to find its way
 * around — the organisation, its sites, its people and its visits — never every scope.
 */
export const DEFAULT_SCOPES: readonly Scope[] = [
  'organisation:read',
  'sites:read',
  'people:read',
  'visits:read',
];

/** The only scopes a publishable key may hold: those of the calls a publishable key may make. */
export const PUBLISHABLE_SCOPES: readonly Scope[] = [
  'forms:read',
  'visits:write',
  'bookings:read',
  'bookings:write',
];

/**
 * Enterprise custom scopes are named bundles of built-in scopes agreed with the organisation, e.g.
 * `custom:front_desk` → visits:read, visits:write, people:read. A key holding one is granted its bundle while
 * the organisation is on Enterprise; on any other plan a custom scope grants nothing.
 */
export const CUSTOM_SCOPE_PATTERN = /^custom:[a-z][a-z0-9_]{0,39}$/;

export const ROLES = ['owner', 'admin', 'member', 'support'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/**
 * What each console role may do when a person acts (console session or an OAuth token acting for them):
 * Owners and Admins everything; members run the front door (visits, deliveries, bookings, roll calls,
 * attendance clock events) and read; support staff only read.
 */
const MEMBER_WRITES: ReadonlySet<Scope> = new Set<Scope>([
  'visits:write',
  'deliveries:write',
  'bookings:write',
  'attendance:write',
  'rollcalls:write',
  'files:write',
]);

export function roleAllows(role: Role, scope: Scope): boolean {
  if (role === 'owner' || role === 'admin') return true;
  if (scope.endsWith(':read')) return scope !== 'audit:read' || role === 'support';
  return role === 'member' && MEMBER_WRITES.has(scope);
}
