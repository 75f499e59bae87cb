import { Module, OnModuleInit } from '@nestjs/common';
import { BookingTypesModule } from '../booking-types/booking-types.module';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { FormsModule } from '../forms/forms.module';
import { MessagesModule } from '../messages/messages.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitsModule } from '../visits/visits.module';
import { sampleBooking } from './booking.samples';
import { BookingsJobs } from './bookings.jobs';
import { BookingsController } from './bookings.controller';
import { BookingsRepository } from './bookings.repository';
import { BookingsService } from './bookings.service';

/**
 * Bookings; /v1/bookings. Sits above visits: a confirmed booking creates its visit through VisitsService. The
 * expiry task (`bookings.expire`, `@Periodic`) runs where RUN_WORKER is on.
 */
@Module({
  imports: [
    PlatformModule,
    EventsModule,
    FormsModule,
    MessagesModule,
    PeopleModule,
    BookingTypesModule,
    VisitsModule,
  ],
  controllers: [BookingsController],
  providers: [BookingsRepository, BookingsService, BookingsJobs],
  exports: [BookingsService],
})
export class BookingsModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['booking'], sampleBooking);
  }
}
