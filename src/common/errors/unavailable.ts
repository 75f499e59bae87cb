import { ApiError } from './api-error';

/** Seconds a client should wait before retrying after a dependency outage (sent as Retry-After). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

// Node socket errors meaning "could not reach / lost the server".
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// node-postgres and pg-pool say these without a code.
const CONNECTION_MESSAGES = [
  /^Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Cannot use a pool after calling end on the pool/i,
];

/**
 * PostgreSQL SQLSTATEs of a database that is down, restarting or full rather than a faulty query: class 08
 * (connection exception), 57P01–57P03 (admin/crash shutdown, cannot connect now), 53300 (too many connections).
 */
function isConnectionSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code);
}

function isConnectionFailure(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 4) return false;
  const { code, message, driverError, cause, errors } = e as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || isConnectionSqlState(code))) return true;
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => m.test(message))) return true;
  // TypeORM's QueryFailedError keeps the driver's error; AggregateError (several addresses tried) keeps each.
  if (Array.isArray(errors) && errors.some((x) => isConnectionFailure(x, depth + 1))) return true;
  return isConnectionFailure(driverError, depth + 1) || isConnectionFailure(cause, depth + 1);
}

/**
 * `unavailable` (503, Retry-After) when `e` is a lost or refused database (or other backing service)
 * connection: a brief outage the client should retry, not an `internal_error`. Null for anything else.
 */
export function unavailableFrom(e: unknown): ApiError | null {
  if (!isConnectionFailure(e)) return null;
  return new ApiError(
    'unavailable',
    `The service is briefly unavailable; retry after ${UNAVAILABLE_RETRY_AFTER_S} seconds with the same Idempotency-Key.`,
    [],
    { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
  );
}
