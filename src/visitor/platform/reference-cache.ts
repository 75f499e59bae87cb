import { Injectable } from '@nestjs/common';
import type { Tenant } from './tenant';

/** The most reads kept per process; past it the cache starts again empty (reads are small, keys are a tenant's). */
const MAX_ENTRIES = 10_000;

/**
 * What the reference checks of a write read (a visit's site, gates, host, visit type and form; a booking's type
 * and its site's time zone), kept per process under the organisation's reference version.
 *
 * The version is a change counter per organisation that triggers bump in every transaction that changes one of
 * those rows (migration `ReferenceVersion`), and the credential lookup reads it with the key, in the statement each
 * request runs anyway (`OrganisationAccess.referenceVersion`). A read is reused only by a request whose credential
 * saw the version it was kept under, so a change (a host deactivated, a gate removed, a form saved) is seen by every
 * process from the next request whose credential lookup follows its commit, as an uncached read would see it; a
 * read made after a newer version committed is only fresher than its version says. Without a version (credentials
 * that do not read it) the read goes to PostgreSQL each time.
 *
 * A read is kept as its promise, so concurrent requests wait for one read; a failed read is not kept. Values are
 * shared between requests and must not be changed by their callers.
 */
@Injectable()
export class ReferenceCache {
  private readonly entries = new Map<string, { version: string; value: Promise<unknown> }>();

  read<T>(tenant: Tenant, version: string | undefined, key: string, load: () => Promise<T>): Promise<T> {
    if (version === undefined) return load();
    const k = `${tenant.organisationId} ${tenant.livemode} ${key}`;
    const kept = this.entries.get(k);
    if (kept?.version === version) return kept.value as Promise<T>;
    const value = load();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(k, { version, value });
    value.catch(() => {
      if (this.entries.get(k)?.value === value) this.entries.delete(k);
    });
    return value;
  }
}
