import type { UnitOfWork } from '../../database/unit-of-work';
import type { PersonResponse } from '../people/dto/person.response';
import type { Tenant } from '../platform/tenant';
import type { VisitResponse } from '../visits/dto/visit.response';
import { EVENT_TYPES } from './event-types';
import type { EventsService } from './events.service';

/**
 * The checks that matter here are the compiler's (`npm run typecheck`, part of `npm run lint`): each
 * `@ts-expect-error` below fails the type check if the line it marks compiles, i.e. if `record()` accepted an
 * uncatalogued type or another type's object.
 */
function recordings(
  events: EventsService,
  uow: UnitOfWork,
  tenant: Tenant,
  v: VisitResponse,
  p: PersonResponse,
) {
  return [
    events.record(uow, tenant, 'visit.created', v),
    events.record(uow, tenant, 'person.deactivated', p),
    // @ts-expect-error a type not in EVENT_CATALOGUE
    events.record(uow, tenant, 'parking.created', v),
    // @ts-expect-error a visit event carries a Visit, not a Person
    events.record(uow, tenant, 'visit.created', p),
    // @ts-expect-error a type is a literal of the catalogue, not any string
    events.record(uow, tenant, String('visit.created'), v),
  ];
}

describe('event types', () => {
  it('record() is typed by the catalogue (checked by tsc); the catalogue lists each type once', () => {
    expect(typeof recordings).toBe('function');
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });
});
