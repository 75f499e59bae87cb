import { SCOPES, Scope } from './scopes';

/** What the authorization page shows of a scope: its words, and whether it is destructive. */
export interface ScopeDescription {
  /** The scope in plain words (from the spec's scopes table). */
  words: string;
  /**
   * It erases or deactivates records, changes who the organisation trusts or screens, starts or closes a roll call,
   * changes attendance rules or consents, or sends the organisation's events elsewhere: never ticked by default on
   * the consent page (the person ticks it on purpose).
   */
  destructive: boolean;
}

/** Every scope in plain words and whether it is destructive: the one table the consent page is built from. */
export const SCOPE_TABLE: Record<Scope, ScopeDescription> = {
  'organisation:read': { words: "See the organisation's name, plan and wallet balance", destructive: false },
  'sites:read': { words: 'See sites, gates and paired kiosks', destructive: false },
  'people:read': { words: 'See hosts and employees', destructive: false },
  'people:write': { words: 'Add, change and deactivate hosts and employees', destructive: true },
  'visits:read': { words: 'See visits', destructive: false },
  'visits:write': {
    words: 'Create and change visits: check in, check out, approve, deny, cancel, resend passes',
    destructive: false,
  },
  'visitors:read': { words: 'See visitor records', destructive: false },
  'visitors:delete': { words: "Permanently erase visitors' personal data", destructive: true },
  'deliveries:read': { words: 'See deliveries', destructive: false },
  'deliveries:write': { words: 'Record deliveries and mark them collected', destructive: false },
  'bookings:read': { words: 'See booking types, slots and bookings', destructive: false },
  'bookings:write': { words: 'Create, reschedule, cancel, confirm and decline bookings', destructive: false },
  'attendance:read': { words: 'See clock events, summaries and shifts', destructive: false },
  'attendance:write': { words: 'Record clock events from your own terminals', destructive: false },
  'attendance:manage': {
    words: 'Change attendance settings, record acknowledgements and consents, review punches',
    destructive: true,
  },
  'watchlist:read': { words: 'See the watchlist', destructive: false },
  'watchlist:write': { words: 'Add and remove watchlist entries', destructive: true },
  'rollcalls:read': { words: 'See roll calls', destructive: false },
  'rollcalls:write': { words: 'Start and close roll calls', destructive: true },
  'webhooks:manage': {
    words: 'Manage webhook endpoints, rotate secrets, send test events, redeliver',
    destructive: true,
  },
  'events:read': { words: 'See events about what the other scopes let it see', destructive: false },
  'audit:read': { words: 'See the audit trail', destructive: false },
  'forms:read': { words: 'See visit types, forms and custom field schemas', destructive: false },
  'files:read': { words: 'See files and get short-lived download links', destructive: false },
  'files:write': { words: 'Register file uploads', destructive: false },
};

/** Each scope in plain words, as the authorization page and the console show it. */
export const SCOPE_WORDS = Object.fromEntries(SCOPES.map((s) => [s, SCOPE_TABLE[s].words])) as Record<
  Scope,
  string
>;

/** The destructive scopes (`SCOPE_TABLE`). */
export const isDestructive = (scope: Scope): boolean => SCOPE_TABLE[scope].destructive;
