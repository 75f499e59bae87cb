import { VisitorErrorCode, visitorCodeInfo } from '../common/errors/error-codes';

type Json = Record<string, unknown>;

/** A sample request id (`req_` + 8 time digits + 14 random base62 characters, see common/ids.ts). */
const REQUEST_ID = 'req_0Ab3kT9qLm4Rx7Vd2Wn8Ys';

/**
 * The error codes one /v1 operation can answer, derived from what the route declares (its `@Authorize`
 * extensions, its path, method and parameters) and the codes its handler names with `@ApiErrors`:
 * - every operation: `bad_request` (a malformed query string or body), `validation_failed` (unknown query
 *   parameters are refused on every route), `internal_error`, `unavailable`;
 * - with a credential: `unauthorized`, `scope_missing` (an OAuth token without the scope), `forbidden` (the acting
 *   person's role, the IP allow-list, a publishable key where none is allowed), `plan_required` (live mode of a
 *   plan without the API; not where the route stays open to a lapsed plan), `rate_limited`;
 * - neither a credential nor `@NoCredential`: `forbidden` (deny by default);
 * - a path with an id: `not_found`;
 * - a POST with a credential (Idempotency-Key): `conflict` (the same key in flight), `idempotency_key_reused`.
 */
export function operationErrorCodes(method: string, path: string, op: Json): VisitorErrorCode[] {
  const codes = new Set<VisitorErrorCode>(['bad_request', 'validation_failed']);
  const credentialed = typeof op['x-required-scope'] === 'string';
  if (credentialed) {
    codes.add('unauthorized').add('scope_missing').add('forbidden').add('rate_limited');
    if (op['x-when-plan-lapsed'] !== true) codes.add('plan_required');
    if (method === 'post') codes.add('conflict').add('idempotency_key_reused');
  } else if (op['x-no-credential'] !== true) codes.add('forbidden'); // no @Authorize: refused, deny by default
  if (/\{[^}]+\}/.test(path)) codes.add('not_found');
  for (const c of (op['x-error-codes'] as VisitorErrorCode[] | undefined) ?? []) codes.add(c);
  codes.add('internal_error').add('unavailable');
  return [...codes];
}

/** A sample `detail` and `errors` of each code, as the service words them. */
function sample(code: VisitorErrorCode): { detail: string; errors: { location: string; message: string }[] } {
  const none = (detail: string) => ({ detail, errors: [] });
  switch (code) {
    case 'bad_request':
      return none('The body is not valid JSON.');
    case 'validation_failed':
      return {
        detail: '2 fields are invalid: body.site_id, query.colour',
        errors: [
          { location: 'body.site_id', message: 'is required' },
          { location: 'query.colour', message: 'is not a parameter of this endpoint' },
        ],
      };
    case 'unauthorized': {
      const detail = 'Send the credential as Authorization: Bearer <key or token>.';
      return { detail, errors: [{ location: 'header.Authorization', message: detail }] };
    }
    case 'scope_missing':
      return none('This endpoint needs the visits:write scope, which the credential lacks.');
    case 'forbidden':
      return none('The support role does not allow visits:write.');
    case 'plan_required':
      return none('The free plan does not include the REST API in live mode; test mode works on every plan.');
    case 'consent_required':
      return none('The employee has not consented to selfie evidence.');
    case 'not_found':
      return none('Visit visit_3kT9qLm4Rx7Vd2Wn8YsBc1 was not found.');
    case 'conflict':
      return none('A request with this Idempotency-Key is in progress; retry with the same key.');
    case 'invalid_state':
      return none('A visit in status checked_out can no longer be changed.');
    case 'idempotency_key_reused':
      return none(
        'This Idempotency-Key was used in the last 24 hours with a different method, path or body, or by another credential; use a new key.',
      );
    case 'location_check_failed':
      return none('The clock-in is outside the site geofence.');
    case 'rate_limited':
      return none('Too many requests; retry after the number of seconds in Retry-After.');
    case 'internal_error':
      return none('Something failed on our side; quote request_id to support.');
    case 'unavailable':
      return none('The service is briefly unavailable; retry after 1 seconds with the same Idempotency-Key.');
  }
}

/** `scope_missing`, `plan_required` → `ScopeMissingOrPlanRequired`: the name of a shared error response. */
const responseName = (codes: VisitorErrorCode[]) =>
  codes.map((c) => c.replace(/(^|_)(\w)/g, (_m, _u, ch: string) => ch.toUpperCase())).join('Or');

/**
 * The documented error responses of one /v1 operation: one per status, each a reference to a shared response
 * (added to `shared`) whose `application/problem+json` body limits `code` to the codes of that status the
 * operation can answer, with one example per code.
 */
export function problemResponses(
  method: string,
  path: string,
  op: Json,
  o: { docsUrl: string; problemRef: string; shared: Record<string, Json> },
): Record<string, Json> {
  const byStatus = new Map<number, VisitorErrorCode[]>();
  for (const code of operationErrorCodes(method, path, op)) {
    const { status } = visitorCodeInfo(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = responseName(codes);
    o.shared[name] ??= {
      description: codes.map((c) => `\`${c}\`: ${visitorCodeInfo(c).cause}`).join('\n\n'),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [
              { $ref: o.problemRef },
              { type: 'object', properties: { status: { const: status }, code: { enum: codes } } },
            ],
          },
          examples: Object.fromEntries(
            codes.map((code) => {
              const info = visitorCodeInfo(code);
              return [
                code,
                {
                  summary: info.title,
                  value: {
                    type: `${o.docsUrl}/errors#${code}`,
                    title: info.title,
                    status,
                    ...sample(code),
                    instance: '/v1/visits/visit_3kT9qLm4Rx7Vd2Wn8YsBc1/check-in',
                    code,
                    request_id: REQUEST_ID,
                  },
                },
              ];
            }),
          ),
        },
      },
    };
    out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}
