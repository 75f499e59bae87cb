import type { components } from './generated/v1';

/** The problem details every /v1 error carries (RFC 9457), as the served document describes them. */
export type Problem = components['schemas']['Problem'];

/** The error codes the contract names (`Problem.code`). New codes may appear: branch on them, then on `status`. */
export type GatehouseErrorCode = Problem['code'];

/** A field error: `location` is `body.<path>`, `query.<name>`, `path.<name>` or `header.<name>`. */
export type FieldError = Problem['errors'][number];

/** The code a response without a problem body (a proxy, a network failure) is treated as, by its status. */
function codeOfStatus(status: number): GatehouseErrorCode | 'unknown' {
  if (status === 0 || status === 502 || status === 503 || status === 504) return 'unavailable';
  if (status === 429) return 'rate_limited';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 400) return 'bad_request';
  if (status >= 500) return 'internal_error';
  return 'unknown';
}

function isProblem(body: unknown): body is Partial<Problem> & { code: string } {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string';
}

/**
 * A /v1 call that did not succeed. `code` is the problem's code (one of `GatehouseErrorCode`, or a newer code this
 * version does not know, or `unknown`), `status` the HTTP status (0 when no response arrived), `requestId` the
 * server's request id (for support), `errors` the field errors of a `validation_failed`.
 */
export class GatehouseError extends Error {
  override readonly name = 'GatehouseError';
  readonly code: GatehouseErrorCode | 'unknown' | (string & {});
  readonly status: number;
  readonly requestId: string | null;
  readonly errors: FieldError[];
  /** The problem body as received, when there was one. */
  readonly problem: Partial<Problem> | null;

  constructor(o: {
    code: GatehouseError['code'];
    status: number;
    message: string;
    requestId?: string | null;
    errors?: FieldError[];
    problem?: Partial<Problem> | null;
    cause?: unknown;
  }) {
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause });
    this.code = o.code;
    this.status = o.status;
    this.requestId = o.requestId ?? null;
    this.errors = o.errors ?? [];
    this.problem = o.problem ?? null;
  }

  /** The error for a response that was not 2xx, from its parsed body (problem details or anything else). */
  static fromResponse(response: Response, body: unknown): GatehouseError {
    const requestId = response.headers.get('svc-request-id');
    if (isProblem(body))
      return new GatehouseError({
        code: body.code,
        status: typeof body.status === 'number' ? body.status : response.status,
        message: body.detail || body.title || `${response.status} ${body.code}`,
        requestId: body.request_id ?? requestId,
        errors: Array.isArray(body.errors) ? body.errors : [],
        problem: body,
      });
    return new GatehouseError({
      code: codeOfStatus(response.status),
      status: response.status,
      message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} without problem details`,
      requestId,
    });
  }

  /** A request that got no response (connection refused or reset, DNS, TLS), after the retries. */
  static fromNetwork(cause: unknown): GatehouseError {
    return new GatehouseError({
      code: 'unavailable',
      status: 0,
      message: `no response: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });
  }
}

/** Narrows `e` to a GatehouseError, optionally of one code: `if (isGatehouseError(e, 'not_found')) …`. */
export function isGatehouseError<C extends GatehouseErrorCode>(
  e: unknown,
  code?: C,
): e is GatehouseError & { code: C } {
  return e instanceof GatehouseError && (code === undefined || e.code === code);
}
