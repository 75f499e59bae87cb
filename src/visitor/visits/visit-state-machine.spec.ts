import { ApiError } from '../../common/errors/api-error';
import { transition, VISIT_STATUSES, VisitAction, VisitStatus } from './visit-state-machine';

const allowed: Record<VisitAction, VisitStatus[]> = {
  check_in: ['expected'],
  approve: ['awaiting_approval'],
  deny: ['awaiting_approval'],
  check_out: ['checked_in'],
  cancel: ['expected'],
  no_show: ['expected'],
};

describe('visit transition table', () => {
  const ctx = { siteRequiresApproval: false };

  it('check-in goes to checked_in, or awaiting_approval when the site requires host approval', () => {
    expect(transition('expected', 'check_in', ctx)).toEqual({
      to: 'checked_in',
      events: ['visit.checked_in'],
      sets: ['checked_in_at'],
    });
    expect(transition('expected', 'check_in', { siteRequiresApproval: true })).toEqual({
      to: 'awaiting_approval',
      events: ['visit.approval_requested'],
      sets: [],
    });
  });

  it('approve checks the visitor in; deny ends the visit', () => {
    expect(transition('awaiting_approval', 'approve', ctx)).toMatchObject({
      to: 'checked_in',
      events: ['visit.approved', 'visit.checked_in'],
    });
    expect(transition('awaiting_approval', 'deny', ctx)).toMatchObject({
      to: 'denied',
      events: ['visit.denied'],
    });
  });

  it('check-out, cancel and no-show', () => {
    expect(transition('checked_in', 'check_out', ctx)).toMatchObject({
      to: 'checked_out',
      events: ['visit.checked_out'],
    });
    expect(transition('expected', 'cancel', ctx)).toMatchObject({
      to: 'cancelled',
      events: ['visit.cancelled'],
      sets: ['cancelled_at'],
    });
    expect(transition('expected', 'no_show', ctx)).toMatchObject({
      to: 'no_show',
      events: ['visit.no_show'],
    });
  });

  it.each(Object.entries(allowed) as [VisitAction, VisitStatus[]][])(
    '%s from any other status is invalid_state',
    (action, from) => {
      for (const status of VISIT_STATUSES.filter((s) => !from.includes(s))) {
        let err: unknown;
        try {
          transition(status, action, ctx);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe('invalid_state');
        expect((err as ApiError).detail).toContain(status);
      }
    },
  );
});
