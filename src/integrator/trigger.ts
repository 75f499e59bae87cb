import { ApiTarget, api, Method } from './api';
import type { Output } from './output';

interface Obj {
  id: string;
  status?: string;
}
interface Page<T> {
  data: T[];
}

/** What a recipe calls: the API, with each step shown as progress. */
class Steps {
  constructor(
    private readonly target: ApiTarget,
    private readonly out: Output,
  ) {}

  async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    this.out.progress(`${method} ${path}`);
    return api<T>(this.target, method, path, body);
  }

  /** The first test-mode site of the organisation (a test key sees only those). */
  async site(): Promise<string> {
    const sites = await this.call<Page<{ id: string }>>('GET', '/v1/sites?limit=1');
    if (!sites.data.length) throw new Error('the organisation has no site');
    return sites.data[0].id;
  }

  /** An active person who can host, or a new sample host. */
  async host(): Promise<string> {
    const people = await this.call<Page<{ id: string; can_host: boolean; active: boolean }>>(
      'GET',
      '/v1/people?limit=100',
    );
    const host = people.data.find((p) => p.can_host && p.active);
    return host?.id ?? (await this.person()).id;
  }

  person(): Promise<Obj> {
    const n = Math.floor(Math.random() * 1e6);
    return this.call<Obj>('POST', '/v1/people', {
      name: `Sample Host ${n}`,
      email: `sample.host.${n}@example.com`,
    });
  }

  /** An enabled visit type, `meeting` when there is one. */
  async visitType(): Promise<string> {
    const types = await this.call<Page<{ key: string; enabled: boolean }>>(
      'GET',
      '/v1/visit-types?limit=100',
    );
    const enabled = types.data.filter((t) => t.enabled);
    return (enabled.find((t) => t.key === 'meeting') ?? enabled[0])?.key ?? 'meeting';
  }

  async visit(): Promise<Obj> {
    const [site, host, type] = [await this.site(), await this.host(), await this.visitType()];
    return this.call<Obj>('POST', '/v1/visits', {
      site_id: site,
      host_id: host,
      type,
      visitor: { name: 'Sample Visitor', phone: '+233244000000', email: 'visitor@example.com' },
      purpose: 'Sample visit (gatehouse-dev trigger)',
    });
  }

  async checkedIn(): Promise<Obj> {
    const v = await this.visit();
    return this.call<Obj>('POST', `/v1/visits/${v.id}/check-in`, {});
  }

  async delivery(): Promise<Obj> {
    const [site, host] = [await this.site(), await this.host()];
    return this.call<Obj>('POST', '/v1/deliveries', {
      site_id: site,
      recipient_id: host,
      carrier: 'DHL',
      description: 'Sample parcel (gatehouse-dev trigger)',
    });
  }

  /** A booking of the first active booking type, at its first free slot of the coming week. */
  async booking(needPending = false): Promise<Obj> {
    const types = await this.call<Page<{ id: string; active: boolean; requires_confirmation: boolean }>>(
      'GET',
      '/v1/booking-types?limit=100',
    );
    const type = types.data.find((t) => t.active && (!needPending || t.requires_confirmation));
    if (!type)
      throw new Error(
        needPending
          ? 'no active booking type requires confirmation; create one in the console (Bookings) first'
          : 'no active booking type; create one in the console (Bookings) first',
      );
    const slots = await this.call<{ data: { start: string; remaining: number }[] }>(
      'GET',
      `/v1/booking-types/${type.id}/availability`,
    );
    const slot = slots.data.find((s) => s.remaining > 0);
    if (!slot) throw new Error(`booking type ${type.id} has no free slot in the coming week`);
    return this.call<Obj>('POST', '/v1/bookings', {
      booking_type_id: type.id,
      start: slot.start,
      attendee: { name: 'Sample Attendee', phone: '+233244000001', email: 'attendee@example.com' },
    });
  }

  /** A confirmed booking: confirmed at once, or pending and then confirmed. */
  async confirmedBooking(): Promise<Obj> {
    const b = await this.booking();
    return b.status === 'pending' ? this.call<Obj>('POST', `/v1/bookings/${b.id}/confirm`, {}) : b;
  }
}

/** How each event type is made to happen: the test-mode objects created through /v1. */
const RECIPES: Record<string, (s: Steps) => Promise<Obj>> = {
  'visit.created': (s) => s.visit(),
  'visit.updated': async (s) =>
    s.call('PATCH', `/v1/visits/${(await s.visit()).id}`, { purpose: 'Updated sample visit' }),
  'visit.checked_in': (s) => s.checkedIn(),
  'visit.checked_out': async (s) => s.call('POST', `/v1/visits/${(await s.checkedIn()).id}/check-out`, {}),
  'visit.cancelled': async (s) =>
    s.call('POST', `/v1/visits/${(await s.visit()).id}/cancel`, { reason: 'Sample cancellation' }),
  'visit.no_show': async (s) => s.call('POST', `/v1/test-helpers/visits/${(await s.visit()).id}/no-show`, {}),
  'person.created': (s) => s.person(),
  'delivery.received': (s) => s.delivery(),
  'delivery.collected': async (s) => s.call('POST', `/v1/deliveries/${(await s.delivery()).id}/collect`, {}),
  'delivery.returned': async (s) => s.call('POST', `/v1/deliveries/${(await s.delivery()).id}/return`, {}),
  'booking.created': (s) => s.booking(),
  'booking.confirmed': (s) => s.confirmedBooking(),
  'booking.declined': async (s) =>
    s.call('POST', `/v1/bookings/${(await s.booking(true)).id}/decline`, { reason: 'Sample decline' }),
  'booking.cancelled': async (s) =>
    s.call('POST', `/v1/bookings/${(await s.confirmedBooking()).id}/cancel`, {
      reason: 'Sample cancellation',
    }),
  'booking.expired': async (s) =>
    s.call('POST', `/v1/test-helpers/bookings/${(await s.booking(true)).id}/expire`, {}),
};

export const TRIGGERABLE = Object.keys(RECIPES);

/** `gatehouse-dev trigger <type>`: creates the test-mode objects whose change records an event of `type`. */
export async function trigger(target: ApiTarget, type: string, out: Output): Promise<void> {
  const recipe = RECIPES[type];
  const made = await recipe(new Steps(target, out));
  out.emit(
    {
      type: 'triggered',
      event_type: type,
      object_id: made.id,
      ...(made.status ? { status: made.status } : {}),
    },
    `${out.paint('green', 'Triggered')} ${type}: ${made.id}${made.status ? ` (${made.status})` : ''}`,
  );
}
