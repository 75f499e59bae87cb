import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { DeliveryResponse, toDeliveryResponse } from './dto/delivery.response';

declare module '../events/event-types' {
  interface EventObjects {
    'delivery.received': DeliveryResponse;
    'delivery.collected': DeliveryResponse;
    'delivery.returned': DeliveryResponse;
  }
}

/** Sample `data.object` of `delivery.*`: a Delivery in the status the type names. */
export const sampleDelivery: SampleFactory<'delivery'> = (type, tenant, now) => {
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
};
