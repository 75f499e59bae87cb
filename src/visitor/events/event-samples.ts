import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { Tenant } from '../platform/tenant';
import type { EventType } from './event-types';

/** `data.object` of a sample event of `type` (webhook test sends), in the shape the type's own endpoint returns. */
export type SampleFactory = (type: EventType, tenant: Tenant, now: Date) => Record<string, unknown>;

/**
 * Samples of event objects, by resource (the part of the type before the dot). Each domain registers the samples
 * of its own resources, built with its own response mappers (`visit` and `pass` by visits, `person` by people,
 * `visitor` by visitors, `booking` by bookings, `attendance` by attendance). Types whose resources are not built yet
 * (deliveries, roll calls, watchlist) get a minimal documented sample here: `id` with the resource's prefix, `object`, and the fields the
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
    case 'delivery':
      return { id: newId('delivery'), object: 'delivery', status: action, [`${action}_at`]: iso };
    case 'rollcall':
      return {
        id: newId('rollcall'),
        object: 'rollcall',
        site_id: newId('site'),
        status: action,
        [`${action}_at`]: iso,
      };
    case 'watchlist':
      return {
        id: newId('watch'),
        object: 'watchlist_match',
        visit_id: newId('visit'),
        visitor_id: newId('visitor'),
        matched_at: iso,
      };
    default:
      return { id: newId(resource), object: resource };
  }
}
