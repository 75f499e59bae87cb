import type { Role } from '../platform/scopes';

/**
 * The person the console and the OAuth pages act for, as they hand it to domain services: who, in which
 * organisation, with which role. Built by `AccountsService` from the account; no stored row (and so no password
 * hash or sign-in bookkeeping) leaves the accounts domain.
 */
export interface ConsoleCaller {
  id: string;
  organisation_id: string;
  email: string;
  name: string;
  role: Role;
}

/** A console account as other domains may see it: the caller, and whether it is turned off. */
export interface ConsoleAccount extends ConsoleCaller {
  disabled_at: Date | null;
}

export const toConsoleCaller = (a: ConsoleCaller): ConsoleCaller => ({
  id: a.id,
  organisation_id: a.organisation_id,
  email: a.email,
  name: a.name,
  role: a.role,
});

export const toConsoleAccount = (a: ConsoleAccount): ConsoleAccount => ({
  ...toConsoleCaller(a),
  disabled_at: a.disabled_at,
});
