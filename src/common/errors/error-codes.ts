/**
 * The one error vocabulary. Domain code throws `ApiError` with one of these codes; each surface renders it in
 * its own format with an exhaustive switch (see problem-details.ts and public-envelope.ts).
 */
export const ERROR_CODES = [
  'validation_failed',
  'bad_request',
  'unauthorized',
  'forbidden',
  'scope_missing',
  'plan_required',
  'consent_required',
  'not_found',
  'conflict',
  'invalid_state',
  'idempotency_key_reused',
  'location_check_failed',
  'rate_limited',
  'internal_error',
  'unavailable',
  // Public-surface-only conditions (the public spec's FUNDRAISING_DISABLED / FEATURE_DISABLED).
  'fundraising_disabled',
  'feature_disabled',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function assertNever(x: never): never {
  throw new Error(`Unhandled case: ${String(x)}`);
}

/** Visitor surface: status and title per code, exactly as the visitor spec's error table. */
export interface VisitorCodeInfo {
  status: number;
  title: string;
  cause: string;
  retry: string;
}

export type VisitorErrorCode = Exclude<ErrorCode, 'fundraising_disabled' | 'feature_disabled'>;

export function visitorCode(code: ErrorCode): VisitorErrorCode {
  switch (code) {
    case 'fundraising_disabled':
    case 'feature_disabled':
      return 'forbidden';
    default:
      return code;
  }
}

export function visitorCodeInfo(code: VisitorErrorCode): VisitorCodeInfo {
  switch (code) {
    case 'validation_failed':
      return {
        status: 422,
        title: 'Validation failed',
        cause:
          'A required field is missing, has the wrong type or format, a custom field does not match its form, an ID is unusable here, `Idempotency-Key` is missing on a POST, or a pre-registration names a type not open for it.',
        retry: 'No',
      };
    case 'bad_request':
      return {
        status: 400,
        title: 'Bad request',
        cause:
          'The body is not valid JSON or not UTF-8, nests arrays and objects deeper than the limit (64 levels by default), or is larger than the limit, `Content-Type` is not `application/json`, or the query string is malformed.',
        retry: 'No',
      };
    case 'unauthorized':
      return {
        status: 401,
        title: 'Unauthorized',
        cause:
          'The `Authorization` header is missing, sent more than once or not `Bearer`, or the key or token is unknown, revoked or expired.',
        retry: 'No (refresh an OAuth token and retry once)',
      };
    case 'forbidden':
      return {
        status: 403,
        title: 'Forbidden',
        cause:
          'A publishable key on an endpoint it may not call, a role that does not allow the action, or an address outside the IP allow-list.',
        retry: 'No',
      };
    case 'scope_missing':
      return {
        status: 403,
        title: 'Scope missing',
        cause: 'The credential lacks the scope the endpoint needs; `detail` names it.',
        retry: 'No',
      };
    case 'plan_required':
      return {
        status: 403,
        title: 'Plan required',
        cause:
          'The plan lacks this in live mode, the action would exceed a plan limit, or the record is hidden by plan history.',
        retry: 'No',
      };
    case 'consent_required':
      return {
        status: 403,
        title: 'Consent required',
        cause: 'Attendance evidence that needs employee consent was not given or was withdrawn.',
        retry: 'No',
      };
    case 'not_found':
      return {
        status: 404,
        title: 'Not found',
        cause:
          'No such object (or route) in this organisation and mode. Objects of other organisations and of the other mode are also not found.',
        retry: 'No',
      };
    case 'conflict':
      return {
        status: 409,
        title: 'Conflict',
        cause:
          'Slot taken, e-mail already used, roll call already active at the site, or the same idempotency key is still in flight.',
        retry: 'Only the in-flight case, with the same key',
      };
    case 'invalid_state':
      return {
        status: 409,
        title: 'Invalid state',
        cause: "The object's status does not allow the action.",
        retry: 'No; re-read the object',
      };
    case 'idempotency_key_reused':
      return {
        status: 422,
        title: 'Idempotency key reused',
        cause:
          'The key was used within 24 hours with a different method, path or body, or by another credential.',
        retry: 'No; use a new key',
      };
    case 'location_check_failed':
      return {
        status: 422,
        title: 'Location check failed',
        cause: 'Phone clock-in outside the site geofence and not on a site Wi-Fi network.',
        retry: 'No',
      };
    case 'rate_limited':
      return {
        status: 429,
        title: 'Rate limited',
        cause: 'The minute allowance of the organisation and mode is used.',
        retry: 'Yes, after `Retry-After`',
      };
    case 'internal_error':
      return {
        status: 500,
        title: 'Internal error',
        cause:
          'Something failed on our side. The body never holds internal details; quote `request_id` to support.',
        retry: 'Yes, with backoff and the same idempotency key',
      };
    case 'unavailable':
      return {
        status: 503,
        title: 'Unavailable',
        cause: 'Brief unavailability.',
        retry: 'Yes, with backoff; honour `Retry-After` if present',
      };
    default:
      return assertNever(code);
  }
}

/** Public surface codes (the public spec's list) and the status each goes with (docs/decisions.md). */
export const PUBLIC_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'VALIDATION_FAILED',
  'RATE_LIMITED',
  'FUNDRAISING_DISABLED',
  'FEATURE_DISABLED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;
export type PublicCode = (typeof PUBLIC_CODES)[number];

export function publicCode(code: ErrorCode): PublicCode {
  switch (code) {
    case 'validation_failed':
    case 'bad_request':
    case 'idempotency_key_reused':
    case 'location_check_failed':
      return 'VALIDATION_FAILED';
    case 'unauthorized':
      return 'UNAUTHORIZED';
    case 'forbidden':
    case 'scope_missing':
    case 'plan_required':
    case 'consent_required':
      return 'FORBIDDEN';
    case 'not_found':
      return 'NOT_FOUND';
    case 'conflict':
    case 'invalid_state':
      return 'CONFLICT';
    case 'rate_limited':
      return 'RATE_LIMITED';
    case 'internal_error':
      return 'INTERNAL';
    case 'unavailable':
      return 'SERVICE_UNAVAILABLE';
    case 'fundraising_disabled':
      return 'FUNDRAISING_DISABLED';
    case 'feature_disabled':
      return 'FEATURE_DISABLED';
    default:
      return assertNever(code);
  }
}

export function publicStatus(code: PublicCode): { status: number; meaning: string } {
  switch (code) {
    case 'VALIDATION_FAILED':
      return {
        status: 400,
        meaning: 'A query parameter is invalid (the message names it), or the request itself is malformed.',
      };
    case 'UNAUTHORIZED':
      return {
        status: 401,
        meaning:
          'The `x-api-key` header holds a key that is unknown or revoked. Omit the header to use the keyless tier.',
      };
    case 'FORBIDDEN':
      return { status: 403, meaning: 'The key may not be used for this request.' };
    case 'NOT_FOUND':
      return {
        status: 404,
        meaning:
          'Unknown route, unknown slug, id or username, resource not public, or not in a returnable state. Also any method other than GET (the `Allow` header lists GET).',
      };
    case 'CONFLICT':
      return { status: 409, meaning: 'Reserved; no read endpoint returns it today.' };
    case 'RATE_LIMITED':
      return {
        status: 429,
        meaning:
          'The minute allowance (30 keyless per IP, 600 with a key) is used; wait `Retry-After` seconds.',
      };
    case 'FUNDRAISING_DISABLED':
      return { status: 403, meaning: 'Fundraising content is switched off for this deployment or country.' };
    case 'FEATURE_DISABLED':
      return { status: 403, meaning: 'The feature behind this endpoint is switched off.' };
    case 'SERVICE_UNAVAILABLE':
      return { status: 503, meaning: 'Brief unavailability; retry with backoff.' };
    case 'INTERNAL':
      return { status: 500, meaning: 'Something failed on our side; quote `ref` to support.' };
    default:
      return assertNever(code);
  }
}
