import type { Tenant } from '../platform/tenant';

/**
 * Who of the staff is on a site at a moment: the person ids (`person_…`) of employees clocked in there. A roll
 * call snapshots them with the checked-in visitors. `AttendanceService.onSite` provides it (`RollcallsModule`).
 */
export interface OnSiteStaff {
  onSite(tenant: Tenant, siteId: string, at: Date): Promise<string[]>;
}

export const ON_SITE_STAFF = Symbol('ON_SITE_STAFF');
