import { Module, OnModuleInit } from '@nestjs/common';
import { newId } from '../../common/ids';
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
import { toDeliveryResponse } from './dto/delivery.response';

/** Deliveries (/v1/deliveries). */
@Module({
  imports: [PlatformModule, EventsModule, FilesModule, MessagesModule, OrganisationsModule, PeopleModule],
  controllers: [DeliveriesController],
  providers: [DeliveriesRepository, DeliveriesService],
})
export class DeliveriesModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['delivery'], (type, tenant, now) => {
      const status = type === 'delivery.received' ? 'received' : type.split('.')[1];
      return {
        ...toDeliveryResponse({
          id: newId('delivery'),
          organisation_id: tenant.organisationId,
          livemode: tenant.livemode,
          site_id: newId('site'),
          recipient_id: newId('person'),
          status: status as 'received' | 'collected' | 'returned',
          carrier: 'DHL',
          tracking_number: 'JD014600006281234567',
          description: 'One parcel',
          photo_file_id: null,
          received_at: now,
          received_by: null,
          collected_at: status === 'collected' ? now : null,
          collected_by: status === 'collected' ? newId('person') : null,
          collected_by_name: null,
          signature_file_id: null,
          collection_photo_file_id: null,
          returned_at: status === 'returned' ? now : null,
          return_reason: status === 'returned' ? 'Refused by the recipient' : null,
          notified_at: now,
          notified_channel: 'email',
          created_at: now,
          updated_at: now,
        }),
      };
    });
  }
}
