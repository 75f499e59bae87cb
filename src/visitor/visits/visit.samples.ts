import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import type { EventTypeOf } from '../events/event-types';
import type { Tenant } from '../platform/tenant';
import { toVisitResponse, VisitResponse } from './dto/visit.response';
import { VISIT_TRANSITIONS, VisitStatus } from './visit-state-machine';
import type { VisitRow } from './visits.repository';

declare module '../events/event-types' {
  interface EventObjects {
    'visit.created': VisitResponse;
    'visit.updated': VisitResponse;
    'visit.approval_requested': VisitResponse;
    'visit.approved': VisitResponse;
    'visit.denied': VisitResponse;
    'visit.checked_in': VisitResponse;
    'visit.checked_out': VisitResponse;
    'visit.cancelled': VisitResponse;
    'visit.no_show': VisitResponse;
    'pass.sent': VisitResponse;
  }
}

/**
 * The visit as an event of `type` carries it: the state the visit transition table gives that event (its
 * timestamps and decision set), `expected` for visit.created, visit.updated and pass.sent.
 */
function sampleVisitRow(type: EventTypeOf<'visit' | 'pass'>, tenant: Tenant, now: Date) {
  let status: VisitStatus = 'expected';
  const set = new Set<string>();
  let outcome: 'approved' | 'denied' | null = null;
  for (const [action, rule] of Object.entries(VISIT_TRANSITIONS)) {
    const t = [false, true]
      .map((siteRequiresApproval) => rule.apply({ siteRequiresApproval }))
      .find((x) => (x.events as readonly string[]).includes(type));
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
    watchlist: null,
    created_at: now,
    updated_at: now,
  };
  return row;
}

/** Sample `data.object` of `visit.*` and `pass.sent`: a Visit in the state the transition table gives the type. */
export const sampleVisit: SampleFactory<'visit' | 'pass'> = (type, tenant, now) => ({
  ...toVisitResponse(sampleVisitRow(type, tenant, now), {}),
});
