import { Module, OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BookingsModule } from '../bookings/bookings.module';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitsModule } from '../visits/visits.module';
import { VisitorErasure } from './visitor-erasure.service';
import { sampleErasure } from './visitor.samples';
import { AttendeeErasureController, VisitorsController } from './visitors.controller';

/**
 * Visitor records (/v1/visitors) and their erasure across every domain that holds visitor data; the erasure of a
 * booking's attendee (/v1/bookings/{id}/attendee).
 */
@Module({
  imports: [DiscoveryModule, PlatformModule, EventsModule, VisitsModule, BookingsModule],
  controllers: [VisitorsController, AttendeeErasureController],
  providers: [VisitorErasure],
  exports: [VisitorErasure],
})
export class VisitorsModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['visitor'], sampleErasure);
  }
}
