import { GatehouseError } from './errors';
import type { TokenRefresher } from './oauth';
import { RETRY_STATUSES, retryDelay, RetryPolicy, sleep } from './retry';

export type FetchLike = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  retry: RetryPolicy;
  /** A fixed credential (an API key). */
  apiKey?: string;
  /** A connected app's tokens, refreshed on a 401. */
  oauth?: TokenRefresher;
  /** Told about each retry before its wait (logging, tests). */
  onRetry?: (info: { attempt: number; delayMs: number; status: number | null; request: Request }) => void;
}

/**
 * The fetch openapi-fetch sends through. Every POST gets an `Idempotency-Key` (a UUID; one the caller set is kept)
 * that stays the same across its retries, so a retried create never makes a second object. 429, 503 and network
 * errors are retried with jittered backoff honouring `Retry-After`, up to `maxAttempts`; a 401 with OAuth
 * credentials refreshes the token once and sends again. Requests that got no response end in a GatehouseError
 * (`unavailable`, status 0).
 */
export function transport(o: TransportOptions): FetchLike {
  return async (request) => {
    const method = request.method.toUpperCase();
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    if (method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', randomUuid());
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const credential = o.oauth ? o.oauth.accessToken : o.apiKey;
      if (credential !== undefined) headers.set('authorization', `Bearer ${credential}`);
      const sent = new Request(request.url, {
        method,
        headers,
        body,
        signal: request.signal,
        redirect: request.redirect,
      });
      let response: Response | null = null;
      let failure: unknown = null;
      try {
        response = await o.fetch(sent);
      } catch (e) {
        if (request.signal.aborted) throw e;
        failure = e;
      }
      if (response?.status === 401 && o.oauth && credential !== undefined && !refreshed) {
        refreshed = true;
        await response.body?.cancel();
        await o.oauth.refreshAfter(credential); // throws OAuthRefreshError when the grant is gone
        attempt -= 1; // the refresh is not a retry
        continue;
      }
      const retryable = response === null || RETRY_STATUSES.has(response.status);
      const delayMs =
        retryable && attempt < o.retry.maxAttempts
          ? retryDelay(o.retry, attempt, response?.headers.get('retry-after') ?? null)
          : null;
      if (delayMs === null) {
        if (response) return response;
        throw GatehouseError.fromNetwork(failure);
      }
      o.onRetry?.({ attempt, delayMs, status: response?.status ?? null, request: sent });
      await response?.body?.cancel();
      await sleep(delayMs, request.signal);
    }
  };
}

/** A v4 UUID from Web Crypto (Node 20, browsers, Deno, Bun). */
function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
