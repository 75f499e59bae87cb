import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { Tenant } from '../platform/tenant';
import type { EventType } from './event-types';

/** `data.object` of a sample event of `type` (webhook test sends), in the shape the type's own endpoint returns. */
export type SampleFactory = (type: EventType, tenant: Tenant, now: Date) => Record<string, unknown>;

/**
 * Samples of event objects, by resource (the part of the type before the dot). Each domain registers the samples
 * of its own resources, built with its own response mappers (`visit` and `pass` by visits, `person` by people,
 * `visitor` by visitors, `delivery`, `rollcall` and `watchlist` by their domains). Types whose resources are not
 * built yet (bookings, attendance) get a minimal documented sample here: `id` with the resource's prefix, `object`, and the fields the
 * spec names. Sample ids are fresh and match no stored record.
 */
@Injectable()
export class EventSamples {
  private readonly byResource = new Map<string, SampleFactory>();

  register(resources: string[], factory: SampleFactory): void {
    for (const r of resources) this.byResource.set(r, factory);
  }

  sample(type: EventType, tenant: Tenant, now: Date): Record<string, unknown> {
    const own = this.byResource.get(type.split('.')[0]);
    return own ? own(type, tenant, now) : minimalSample(type, now);
  }
}

function minimalSample(type: EventType, now: Date): Record<string, unknown> {
  const [resource, action] = type.split('.');
  const iso = now.toISOString();
  switch (resource) {
    case 'booking': {
      const status = { created: 'pending', rescheduled: 'confirmed' }[action] ?? action;
      return {
        id: newId('booking'),
        object: 'booking',
        status,
        visit_id: status === 'confirmed' ? newId('visit') : null,
        confirm_by: status === 'pending' ? new Date(now.getTime() + 86_400_000).toISOString() : null,
        confirmed_at: status === 'confirmed' ? iso : null,
        declined_at: status === 'declined' ? iso : null,
        decline_reason: null,
      };
    }
    case 'attendance':
      return {
        id: newId('attendance'),
        object: 'attendance_event',
        person_id: newId('person'),
        kind: action === 'clocked_out' ? 'clock_out' : 'clock_in',
        time: iso,
        method: 'terminal',
        device: 'Front desk terminal',
        late_minutes: action === 'late' ? 12 : 0,
      };
    default:
      return { id: newId(resource), object: resource };
  }
}
