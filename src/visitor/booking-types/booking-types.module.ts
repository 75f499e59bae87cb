import { Module } from '@nestjs/common';
import { FormsModule } from '../forms/forms.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitTypesModule } from '../visit-types/visit-types.module';
import { BookingTypesController } from './booking-types.controller';
import { BookingTypesRepository } from './booking-types.repository';
import { BookingTypesService } from './booking-types.service';

/** Booking types, availability and slot counters; /v1/booking-types. Managed through the console and the CLI. */
@Module({
  imports: [PlatformModule, FormsModule, OrganisationsModule, PeopleModule, VisitTypesModule],
  controllers: [BookingTypesController],
  providers: [BookingTypesRepository, BookingTypesService],
  exports: [BookingTypesService],
})
export class BookingTypesModule {}
