import { Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';

/**
 * Who of the staff is on a site at a moment: the person ids (`person_…`) of employees clocked in there. A roll
 * call snapshots them with the checked-in visitors. Attendance provides the real one; until it is wired in
 * (`RollcallsModule`: `{ provide: ON_SITE_STAFF, useExisting: <attendance service> }`), no employee is on site.
 */
export interface OnSiteStaff {
  onSite(tenant: Tenant, siteId: string, at: Date): Promise<string[]>;
}

export const ON_SITE_STAFF = Symbol('ON_SITE_STAFF');

/** The default port: no attendance data, so a roll call lists checked-in visitors only. */
@Injectable()
export class NoStaffOnSite implements OnSiteStaff {
  async onSite(): Promise<string[]> {
    return [];
  }
}
