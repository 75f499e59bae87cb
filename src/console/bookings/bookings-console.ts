import type { FastifyRequest } from 'fastify';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import type { AuditService } from '../../visitor/audit/audit.service';
import type { Tenant } from '../../visitor/platform/tenant';
import type { ConsoleTenantOf } from '../auth/console-auth';
import { isClientError } from '../webhooks/flash';

export const tenantOf = (t: ConsoleTenantOf): Tenant => ({
  organisationId: t.organisationId,
  livemode: t.livemode,
});
export const modeOf = (t: ConsoleTenantOf): 'live' | 'test' => (t.livemode ? 'live' : 'test');

/** What a redirect back after an action says (`?notice=<key>`): fixed sentences, never text from the URL. */
const NOTICES: Record<string, string> = {
  confirmed: 'Booking confirmed: its visit is created.',
  declined: 'Booking declined; the attendee is told.',
  published: 'Booking type published: publishable keys can book it and its intake questions are public.',
  unpublished: 'Booking type taken back: publishable keys can no longer see or book it.',
};

/** What a failed action says (`?error=<code>&request_id=<id>`), by problem code. */
const ERRORS: Record<string, string> = {
  invalid_state:
    'Not done: the booking is no longer pending (someone else acted on it, or it expired). It is shown as it is now.',
  validation_failed: 'Not done: that was not accepted (a reason has at most 500 characters).',
  conflict: 'Not done: the booking changed while this ran; try again.',
  not_found: 'Not done: it no longer exists in this mode.',
  forbidden: 'Not done: your role does not allow it.',
  plan_required: "Not done: this organisation's plan does not allow it.",
};

const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;

/** The notice and error of a page after a redirect (`console-flash`). */
export function bookingsFlash(q: Record<string, string | undefined>): {
  notice: string | null;
  error: { message: string; requestId: string } | null;
} {
  const notice = q.notice && Object.hasOwn(NOTICES, q.notice) ? NOTICES[q.notice] : null;
  const error =
    q.error && q.request_id && REQUEST_ID.test(q.request_id)
      ? {
          message: Object.hasOwn(ERRORS, q.error) ? ERRORS[q.error] : 'Not done: the request was refused.',
          requestId: q.request_id,
        }
      : null;
  return { notice, error };
}

/**
 * A failed post-redirect-get action: back to `back` (which already has `?mode=`) with the problem code and this
 * request's id (the request log records the code), so the page shows what failed and the id to quote. Server
 * errors are thrown on (the error page shows the request id).
 */
export function failedBookingAction(req: FastifyRequest, e: unknown, back: string) {
  if (!isClientError(e)) throw e;
  req.ctx.errorCode = e.code;
  const q = new URLSearchParams({ error: e.code, request_id: String(req.id) });
  return { url: `${back}&${q.toString()}`, statusCode: 303 };
}

/** Audits a change made from the bookings pages: the person, the console's mode, the target, the request. */
export function auditChange(
  audit: AuditService,
  req: FastifyRequest,
  a: ConsoleCaller,
  t: ConsoleTenantOf,
  action: string,
  target: { type: 'booking' | 'booking_type'; id: string },
  data: Record<string, unknown>,
): Promise<void> {
  return audit.record({
    organisationId: t.organisationId,
    livemode: t.livemode,
    action,
    actor: { type: 'console_account', id: a.id },
    target,
    data,
    request: req,
  });
}
