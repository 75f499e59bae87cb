import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { visitorCode, visitorCodeInfo } from '../../common/errors/error-codes';

/** What a redirect back after an action says (`?notice=<key>`): fixed sentences, never text from the URL. */
const NOTICES: Record<string, string> = {
  enabled: 'Endpoint enabled.',
  disabled: 'Endpoint disabled.',
  deleted: 'Endpoint deleted.',
  retried: 'Delivery queued to be attempted again now.',
};

/** What a failed action says after its redirect (`?error=<code>&request_id=<id>`), by problem code. */
const ERRORS: Record<string, string> = {
  invalid_state: 'Not done: the endpoint is deleted or disabled. Enable it first.',
  conflict: 'Not done: the delivery is being attempted right now. Try again shortly.',
  plan_required: "Not done: this organisation's plan has no live webhooks.",
  not_found: 'Not done: it no longer exists.',
  validation_failed: 'Not done: the request was not valid.',
  forbidden: 'Not done: your role does not allow it.',
};

const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;

export const flashNotice = (key: string | undefined): string | null =>
  key && Object.hasOwn(NOTICES, key) ? NOTICES[key] : null;

/** The error of a failed action, with the id of the request that failed (to quote to support). */
export function flashError(
  q: Record<string, string | undefined>,
): { message: string; requestId: string } | null {
  if (!q.error || !q.request_id || !REQUEST_ID.test(q.request_id)) return null;
  return {
    message: Object.hasOwn(ERRORS, q.error) ? ERRORS[q.error] : 'Not done: the request was refused.',
    requestId: q.request_id,
  };
}

/**
 * A console action (post, redirect, get) that failed with a client error: back to `back` with the problem code and
 * this request's id (recorded in the request log with the code), so the page shows what failed and the id to quote.
 * Server errors are thrown on (the error page shows the request id).
 */
/** An error of the caller's making (a 4xx problem), which a page shows rather than throws. */
export const isClientError = (e: unknown): e is ApiError =>
  e instanceof ApiError && visitorCodeInfo(visitorCode(e.code)).status < 500;

export function failedAction(req: FastifyRequest, e: unknown, back: string) {
  if (!isClientError(e)) throw e;
  req.ctx.errorCode = e.code;
  const q = new URLSearchParams({ error: e.code, request_id: String(req.id) });
  return { url: `${back}?${q.toString()}`, statusCode: 303 };
}
