import { Module, OnModuleInit } from '@nestjs/common';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { FilesModule } from '../files/files.module';
import { MessagesModule } from '../messages/messages.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { sampleDelivery } from './delivery.samples';

/** Deliveries (/v1/deliveries). */
@Module({
  imports: [PlatformModule, EventsModule, FilesModule, MessagesModule, OrganisationsModule, PeopleModule],
  controllers: [DeliveriesController],
  providers: [DeliveriesRepository, DeliveriesService],
  exports: [DeliveriesService],
})
export class DeliveriesModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['delivery'], sampleDelivery);
  }
}
