import { newId } from '../../common/ids';
import { toPersonResponse } from '../people/dto/person.response';
import { toVisitResponse } from '../visits/dto/visit.response';
import { VISIT_TRANSITIONS, VisitStatus } from '../visits/visit-state-machine';
import type { VisitRow } from '../visits/visits.repository';
import type { EventType } from '../events/event-types';
import { toWebhookEndpointResponse } from './dto/webhook-endpoint.response';
import type { WebhookEndpointRow } from './webhook.entity';

/**
 * The visit as an event of `type` carries it: the state the visit transition table gives that event (its
 * timestamps and decision set), `expected` for visit.created, visit.updated and pass.sent.
 */
function sampleVisitRow(type: EventType, tenant: { organisationId: string; livemode: boolean }, now: Date) {
  let status: VisitStatus = 'expected';
  const set = new Set<string>();
  let outcome: 'approved' | 'denied' | null = null;
  for (const [action, rule] of Object.entries(VISIT_TRANSITIONS)) {
    const t = [false, true]
      .map((siteRequiresApproval) => rule.apply({ siteRequiresApproval }))
      .find((x) => x.events.includes(type));
    if (!t) continue;
    status = t.to;
    t.sets.forEach((c) => set.add(c));
    if (set.has('decided_at')) outcome = action === 'deny' ? 'denied' : 'approved';
    break;
  }
  const at = (column: string) => (set.has(column) ? now : null);
  const expectedAt = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
  const row: VisitRow = {
    id: newId('visit'),
    organisation_id: tenant.organisationId,
    livemode: tenant.livemode,
    status,
    type: 'meeting',
    source: 'invitation',
    site_id: newId('site'),
    gate_id: newId('gate'),
    host_id: newId('person'),
    visitor_id: newId('visitor'),
    visitor_name: 'Ama Mensah',
    visitor_phone: '+233244123456',
    visitor_email: 'ama.mensah@example.com',
    visitor_company: 'Example Ltd',
    purpose: 'Quarterly review',
    expected_at: expectedAt,
    expected_until: new Date(expectedAt.getTime() + 3_600_000),
    checked_in_at:
      at('checked_in_at') ?? (status === 'checked_out' ? new Date(now.getTime() - 2_700_000) : null),
    checked_out_at: at('checked_out_at'),
    cancelled_at: at('cancelled_at'),
    cancel_reason: status === 'cancelled' ? 'Meeting moved' : null,
    decision_outcome: outcome,
    decided_at: at('decided_at'),
    decided_by: outcome ? newId('person') : null,
    decision_reason: outcome === 'denied' ? 'Not expected today' : null,
    booking_id: null,
    pass_channels: ['whatsapp', 'sms'],
    pass_last_sent_at: now,
    custom_fields: {},
    created_at: now,
    updated_at: now,
  };
  return row;
}

/**
 * `data.object` of a test send (POST /v1/webhook-endpoints/{whep_id}/test): a realistic sample in the shape the
 * type's own endpoint returns, built with the same mappers — a Visit for `visit.*` and `pass.sent`, a Person for
 * `person.*`, the erasure notice for `visitor.erased`, the endpoint itself (disabled) for
 * `webhook_endpoint.disabled`. Types whose resources are not built yet (deliveries, bookings, attendance, roll
 * calls, watchlist) get a minimal documented sample: `id` with the resource's prefix, `object`, and the
 * fields the spec names. Sample ids are fresh and match no stored record.
 */
export function sampleObject(
  type: EventType,
  tenant: { organisationId: string; livemode: boolean },
  endpoint: WebhookEndpointRow,
  now: Date,
): Record<string, unknown> {
  const [resource, action] = type.split('.');
  const iso = now.toISOString();
  switch (resource) {
    case 'visit':
    case 'pass':
      return { ...toVisitResponse(sampleVisitRow(type, tenant, now), {}) };
    case 'person':
      return {
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
          active: action !== 'deactivated',
          customFields: {},
          createdAt: now,
          updatedAt: now,
        }),
      };
    case 'visitor':
      return { id: newId('visitor'), object: 'visitor', erased_at: iso, visit_ids: [newId('visit')] };
    case 'webhook_endpoint':
      return {
        ...toWebhookEndpointResponse({
          ...endpoint,
          status: 'disabled',
          disabledReason: 'failing',
          updatedAt: now,
        }),
      };
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
    case 'delivery':
      return { id: newId('delivery'), object: 'delivery', status: action, [`${action}_at`]: iso };
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
