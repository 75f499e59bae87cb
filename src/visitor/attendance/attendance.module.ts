import { Module, OnModuleInit } from '@nestjs/common';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { AttendanceController } from './attendance.controller';
import { AttendanceRepository } from './attendance.repository';
import { AttendanceService } from './attendance.service';
import { sampleClockEvent } from './attendance.samples';
import { TimesheetExport } from './timesheet-export';

/**
 * Attendance: shifts, clock events, evidence consent, leave and holidays, the daily summary and the timesheet
 * export; /v1/shifts, /v1/attendance/*, /v1/people/{id}/attendance-evidence. Exports `AttendanceService.onSite`
 * for roll calls.
 */
@Module({
  imports: [PlatformModule, EventsModule, OrganisationsModule, PeopleModule],
  controllers: [AttendanceController],
  providers: [AttendanceRepository, AttendanceService, TimesheetExport],
  exports: [AttendanceService, TimesheetExport],
})
export class AttendanceModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['attendance'], sampleClockEvent);
  }
}
