import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuditModule } from '../audit/audit.module';
import { AttendanceModule } from '../attendance/attendance.module';
import { BookingTypesModule } from '../booking-types/booking-types.module';
import { BookingsModule } from '../bookings/bookings.module';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { EventsModule } from '../events/events.module';
import { FilesModule } from '../files/files.module';
import { MessagesModule } from '../messages/messages.module';
import { PlatformModule } from '../platform/platform.module';
import { RollcallsModule } from '../rollcalls/rollcalls.module';
import { VisitsModule } from '../visits/visits.module';
import { WatchlistModule } from '../watchlist/watchlist.module';
import { SandboxReset } from './sandbox-reset.service';
import { TestHelpersController } from './test-helpers.controller';

/** /v1/test-helpers (test mode only): each helper calls the owning domain's service; the sandbox reset. */
@Module({
  imports: [
    DiscoveryModule,
    PlatformModule,
    AuditModule,
    VisitsModule,
    BookingsModule,
    AttendanceModule,
    EventsModule,
    // every module with a @HoldsSandboxData repository, so a graph that has the reset (the server's, the CLI's)
    // has all of them
    BookingTypesModule,
    DeliveriesModule,
    FilesModule,
    MessagesModule,
    RollcallsModule,
    WatchlistModule,
  ],
  controllers: [TestHelpersController],
  providers: [SandboxReset],
  exports: [SandboxReset],
})
export class TestHelpersModule {}
