import { Module, OnModuleInit } from '@nestjs/common';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { FormsModule } from '../forms/forms.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PlatformModule } from '../platform/platform.module';
import { PeopleController } from './people.controller';
import { PeopleRepository } from './people.repository';
import { PeopleService } from './people.service';
import { samplePerson } from './person.samples';
import { StaffImport } from './staff-import';

/** People (hosts and employees); /v1/people; the staff CSV import (console, CLI). */
@Module({
  imports: [PlatformModule, EventsModule, FormsModule, OrganisationsModule],
  controllers: [PeopleController],
  providers: [PeopleRepository, PeopleService, StaffImport],
  exports: [PeopleService, StaffImport],
})
export class PeopleModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['person'], samplePerson);
  }
}
