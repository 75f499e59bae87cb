import { Module, OnModuleInit } from '@nestjs/common';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { sampleRollcall } from './rollcall.samples';
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
  exports: [RollcallsService],
})
export class RollcallsModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['rollcall'], sampleRollcall);
  }
}
