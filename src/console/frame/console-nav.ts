import type { Role } from '../../visitor/platform/scopes';

/** One console page in the navigation: its stable path, its title, the roles that may open it. */
export interface ConsoleNavEntry {
  path: string;
  title: string;
  roles: readonly Role[];
  /** False while the page is not built yet: the link is hidden (the path is reserved). */
  built: boolean;
}

const ADMINS: readonly Role[] = ['owner', 'admin'];
const FRONT_DOOR: readonly Role[] = ['owner', 'admin', 'member'];

/**
 * The console's one page table (issue 31): every page's path, title and roles, in navigation order. A page
 * controller declares the same roles with `@ConsoleAuth(...consoleRoles(path))`, so the link a person sees and the
 * check on the page cannot disagree; a page being built flips `built` to true. Support staff see the overview and
 * the request log.
 */
export const CONSOLE_NAV: readonly ConsoleNavEntry[] = [
  { path: '/console', title: 'Overview', roles: ['owner', 'admin', 'member', 'support'], built: true },
  { path: '/console/visits', title: 'Visits', roles: FRONT_DOOR, built: true },
  { path: '/console/bookings', title: 'Bookings', roles: FRONT_DOOR, built: true },
  { path: '/console/desk', title: 'Front desk', roles: FRONT_DOOR, built: true },
  { path: '/console/attendance', title: 'Attendance', roles: ADMINS, built: true },
  { path: '/console/visit-types', title: 'Visit types', roles: ADMINS, built: true },
  { path: '/console/keys', title: 'API keys', roles: ADMINS, built: true },
  { path: '/console/webhooks', title: 'Webhooks', roles: ADMINS, built: true },
  { path: '/console/outbox', title: 'Test outbox', roles: FRONT_DOOR, built: true },
  { path: '/console/apps', title: 'Connected apps', roles: ADMINS, built: true },
  { path: '/console/requests', title: 'Requests', roles: ['owner', 'admin', 'support'], built: true },
  { path: '/console/audit', title: 'Audit trail', roles: ADMINS, built: true },
  { path: '/console/team', title: 'Team', roles: ADMINS, built: true },
];

/** The entry of a page path (exact), or of the page a deeper path belongs to (`/console/visits/vis_…`). */
export function navEntryOf(path: string): ConsoleNavEntry | undefined {
  const clean = path.split(/[?#]/)[0].replace(/\/+$/, '') || '/';
  let best: ConsoleNavEntry | undefined;
  for (const e of CONSOLE_NAV)
    if (clean === e.path || clean.startsWith(e.path + '/'))
      if (!best || e.path.length > best.path.length) best = e;
  return best;
}

/** The roles of a page of the table, for `@ConsoleAuth(...consoleRoles('/console/keys'))`. */
export function consoleRoles(path: string): Role[] {
  const e = CONSOLE_NAV.find((x) => x.path === path);
  if (!e) throw new Error(`${path} is not in CONSOLE_NAV (src/console/frame/console-nav.ts)`);
  return [...e.roles];
}

/** The links a role sees (built pages it may open), marking the current one. */
export function navFor(role: Role, currentPath: string) {
  // A console page outside the table (e.g. /console/account) belongs to the overview for access, but is not it.
  const entry = navEntryOf(currentPath)?.path;
  const current =
    entry === '/console' && currentPath.split(/[?#]/)[0].replace(/\/$/, '') !== '/console' ? null : entry;
  return CONSOLE_NAV.filter((e) => e.built && e.roles.includes(role)).map((e) => ({
    path: e.path,
    title: e.title,
    current: e.path === current,
  }));
}

/** Whether a role may open a console path (a path outside the table: only when it is a console page at all). */
export function roleMayOpen(role: Role, path: string): boolean {
  const e = navEntryOf(path);
  return e !== undefined && e.built && e.roles.includes(role);
}

/**
 * Where a person lands after signing in: `next` when it is a same-origin console path their role may open,
 * otherwise the first page of the table their role allows (never "Not allowed").
 */
export function landingFor(role: Role, next: string | null): string {
  if (next && roleMayOpen(role, next)) return next;
  return CONSOLE_NAV.find((e) => e.built && e.roles.includes(role))?.path ?? '/console';
}

/** A same-origin console path (`/console` or below, optional query), or null: the only places a redirect may go. */
export function safeConsolePath(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2000) return null;
  return /^\/console(\/[A-Za-z0-9/_.~-]*)?(\?[A-Za-z0-9_.~%&=+,:-]*)?$/.test(v) && !v.includes('//')
    ? v
    : null;
}
