import { Module, OnModuleInit } from '@nestjs/common';
import { newId } from '../../common/ids';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { toRollcallResponse } from './dto/rollcall.response';
import { AttendanceModule } from '../attendance/attendance.module';
import { AttendanceService } from '../attendance/attendance.service';
import { ON_SITE_STAFF } from './on-site-staff';
import { RollcallsController } from './rollcalls.controller';
import { RollcallsRepository } from './rollcalls.repository';
import { RollcallsService } from './rollcalls.service';

/** Roll calls (/v1/rollcalls). Employees on site come from attendance through the ON_SITE_STAFF port. */
@Module({
  imports: [PlatformModule, EventsModule, OrganisationsModule, PeopleModule, AttendanceModule],
  controllers: [RollcallsController],
  providers: [
    RollcallsRepository,
    RollcallsService,
    { provide: ON_SITE_STAFF, useExisting: AttendanceService },
  ],
})
export class RollcallsModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['rollcall'], (type, tenant, now) => {
      const closed = type === 'rollcall.closed';
      const summary = toRollcallResponse({
        id: newId('rollcall'),
        organisation_id: tenant.organisationId,
        livemode: tenant.livemode,
        site_id: newId('site'),
        status: closed ? 'closed' : 'active',
        started_by: null,
        started_at: now,
        closed_by: null,
        closed_at: closed ? now : null,
        created_at: now,
        updated_at: now,
        total: 12,
        unaccounted: closed ? 0 : 11,
        safe: closed ? 11 : 1,
        missing: closed ? 1 : 0,
        needs_help: 0,
      });
      if (type !== 'rollcall.person_marked') return { ...summary };
      return {
        ...summary,
        marked: {
          subject_id: newId('visitor'),
          kind: 'visitor',
          status: 'safe',
          marked_by: null,
          marked_at: now.toISOString(),
        },
      };
    });
  }
}
