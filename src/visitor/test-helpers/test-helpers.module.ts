import { Module } from '@nestjs/common';
import { AttendanceModule } from '../attendance/attendance.module';
import { BookingsModule } from '../bookings/bookings.module';
import { EventsModule } from '../events/events.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitsModule } from '../visits/visits.module';
import { TestHelpersController } from './test-helpers.controller';

/** /v1/test-helpers (test mode only): each helper calls the owning domain's service. */
@Module({
  imports: [PlatformModule, VisitsModule, BookingsModule, AttendanceModule, EventsModule],
  controllers: [TestHelpersController],
})
export class TestHelpersModule {}
