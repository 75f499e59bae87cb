import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { Tenant } from '../platform/tenant';
import type { EventType } from './event-types';

/** `data.object` of a sample event of `type` (webhook test sends), in the shape the type's own endpoint returns. */
export type SampleFactory = (type: EventType, tenant: Tenant, now: Date) => Record<string, unknown>;

/**
 * Samples of event objects, by resource (the part of the type before the dot). Each domain registers the samples
 * of its own resources, built with its own response mappers (`visit` and `pass` by visits, `person` by people,
 * `visitor` by visitors, `booking` by bookings, `attendance` by attendance, `delivery`, `rollcall` and `watchlist` by
 * their domains). A type no domain registered gets a minimal sample: `id` with the resource's prefix and `object`.
 * Sample ids are fresh and match no stored record.
 */
@Injectable()
export class EventSamples {
  private readonly byResource = new Map<string, SampleFactory>();

  register(resources: string[], factory: SampleFactory): void {
    for (const r of resources) this.byResource.set(r, factory);
  }

  sample(type: EventType, tenant: Tenant, now: Date): Record<string, unknown> {
    const own = this.byResource.get(type.split('.')[0]);
    return own ? own(type, tenant, now) : minimalSample(type);
  }
}

function minimalSample(type: EventType): Record<string, unknown> {
  const resource = type.split('.')[0];
  return { id: newId(resource), object: resource };
}
