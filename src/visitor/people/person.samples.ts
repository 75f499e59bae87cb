import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { PersonResponse, toPersonResponse } from './dto/person.response';

declare module '../events/event-types' {
  interface EventObjects {
    'person.created': PersonResponse;
    'person.updated': PersonResponse;
    'person.deactivated': PersonResponse;
    'person.reactivated': PersonResponse;
  }
}

/** Sample `data.object` of `person.*`: a Person (inactive for person.deactivated). */
export const samplePerson: SampleFactory<'person'> = (type, tenant, now) => ({
  ...toPersonResponse({
    id: newId('person'),
    organisationId: tenant.organisationId,
    livemode: tenant.livemode,
    name: 'Kofi Boateng',
    email: 'kofi.boateng@example.com',
    phone: '+233201234567',
    department: 'Operations',
    jobTitle: 'Facilities manager',
    employeeNumber: 'E-1024',
    siteIds: [newId('site')],
    canHost: true,
    active: type !== 'person.deactivated',
    customFields: {},
    createdAt: now,
    updatedAt: now,
  }),
});
