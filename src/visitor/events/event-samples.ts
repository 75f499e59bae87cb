import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { Tenant } from '../platform/tenant';
import type { EventObject, EventResource, EventType, EventTypeOf } from './event-types';

/**
 * `data.object` of a sample event of a type of the resources `R` (webhook test sends), in the shape the type's own
 * endpoint returns: the object EventObjects declares for the type.
 */
export type SampleFactory<R extends EventResource> = (
  type: EventTypeOf<R>,
  tenant: Tenant,
  now: Date,
) => EventObject<EventTypeOf<R>>;

/**
 * Samples of event objects, by resource (the part of the type before the dot). Each domain registers the samples
 * of its own resources in its `*.samples.ts`, built with its own response mappers, beside the objects it declares
 * for its types (EventObjects). `webhook_endpoint` is the one resource without a registered sample: a test send
 * of webhook_endpoint.disabled carries the endpoint it is sent to (WebhookEndpointsService.test); any other
 * type without one would get a minimal sample (`id` with the resource's prefix, `object`), which the webhook
 * test refuses. Sample ids are fresh and match no stored record.
 */
@Injectable()
export class EventSamples {
  private readonly byResource = new Map<string, (type: EventType, tenant: Tenant, now: Date) => unknown>();

  register<R extends EventResource>(resources: readonly R[], factory: SampleFactory<R>): void {
    for (const r of resources)
      this.byResource.set(r, factory as (type: EventType, tenant: Tenant, now: Date) => unknown);
  }

  /** The resources that registered a sample (the webhook test checks each type's sample against them). */
  resources(): string[] {
    return [...this.byResource.keys()];
  }

  /** A sample object of `type`; a type whose resource registered none gets `id` with the resource's prefix. */
  sample(type: EventType, tenant: Tenant, now: Date): object {
    const resource = type.split('.')[0];
    const own = this.byResource.get(resource);
    return own ? (own(type, tenant, now) as object) : { id: newId(resource), object: resource };
  }
}
