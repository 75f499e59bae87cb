/** When a request is sent again: 429, 503 and network errors, with jittered exponential backoff. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4). 1 turns retries off. */
  maxAttempts?: number;
  /** The first backoff step in milliseconds (default 250); each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** The longest backoff wait (default 10 000 ms). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this (default 60 000 ms) is not waited for: the response is returned as is. */
  maxRetryAfterMs?: number;
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(o: RetryOptions | false | undefined): RetryPolicy {
  const given = o === false ? { maxAttempts: 1 } : (o ?? {});
  return {
    maxAttempts: Math.max(1, given.maxAttempts ?? 4),
    baseDelayMs: given.baseDelayMs ?? 250,
    maxDelayMs: given.maxDelayMs ?? 10_000,
    maxRetryAfterMs: given.maxRetryAfterMs ?? 60_000,
  };
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (1 for the first): "equal jitter" backoff (half the step fixed, half
 * random), or the server's `Retry-After` plus a jitter of up to one backoff step (capped at 1 s) so that clients
 * told the same time do not return together. Null when `Retry-After` asks for more than `maxRetryAfterMs`.
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfter: string | null,
  random = Math.random,
): number | null {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const told = parseRetryAfter(retryAfter);
  if (told === null) return step / 2 + random() * (step / 2);
  if (told > policy.maxRetryAfterMs) return null;
  return told + random() * Math.min(step, 1000);
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
