import { Agent as HttpAgent, ClientRequest, request as httpRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { CheckedDestination, DestinationCheck } from './destination';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first bytes of the response body, for the delivery log. */
  excerpt: string | null;
}

const EXCERPT_BYTES = 1024;

/**
 * A receiver's text as PostgreSQL text can hold it: NUL becomes U+FFFD, as bytes that are not UTF-8 already do.
 * A NUL in one answer failed the statement that records a batch of outcomes, so none of them was stored.
 */
const storable = (text: string | null): string | null => text && text.replaceAll('\u0000', '\uFFFD');

// Connections are kept alive and reused per host and port. A pooled connection goes to an address that was
// checked when it was opened; every new connection goes to a checked address (the destination's lookup hook).
// Free sockets are kept up to the pool size: a worker spends much of each delivery on its database round trips, so
// many of its sockets are idle at any moment, and a smaller free list closed some only to open new ones for the next
// jobs.
const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 30_000 }),
  https: new HttpsAgent({
    keepAlive: true,
    maxSockets: 64,
    maxFreeSockets: 64,
    timeout: 30_000,
    minVersion: 'TLSv1.2',
  }),
};

/**
 * POSTs one signed webhook to `to`, a destination as `checkedDestination` checks it: a new connection goes to
 * exactly the checked address (its `lookup` returns it), so a DNS answer cannot change between check and connect.
 * Redirects are never followed; any non-2xx, a redirect, a timeout, a connection or TLS error is a failure.
 * `timeoutMs` bounds the whole attempt, the wait for the check included, and `durationMs` counts that wait: a
 * claim outlasts an attempt by a few seconds only (`claimMs`), so a slow DNS answer must not keep an attempt open
 * after its claim lapsed and another worker took the delivery.
 */
export function sendWebhook(
  to: DestinationCheck,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let req: ClientRequest | undefined;
    const finish = (ok: boolean, statusCode: number | null, error: string | null, excerpt: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ok, statusCode, durationMs: elapsed(), error: storable(error), excerpt: storable(excerpt) });
    };
    const failed = (e: NodeJS.ErrnoException) =>
      finish(false, null, `${e.code ?? 'error'}: ${e.message}`, null);
    const timer = setTimeout(() => {
      finish(false, null, `timeout: no answer within ${timeoutMs} ms`, null);
      req?.destroy();
    }, timeoutMs);
    const post = (dest: CheckedDestination) => {
      const https = dest.url.protocol === 'https:';
      req = (https ? httpsRequest : httpRequest)(
        {
          ...dest.request,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Gatehouse-Webhooks/1',
            ...headers,
            'content-length': Buffer.byteLength(body),
          },
          agent: https ? agents.https : agents.http,
        } as Parameters<typeof httpsRequest>[1],
        (res: IncomingMessage) => {
          const status = res.statusCode ?? 0;
          let chunks: Buffer[] | undefined;
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < EXCERPT_BYTES) (chunks ??= []).push(c);
            size += c.length;
            if (size >= EXCERPT_BYTES) res.destroy();
          });
          const done = () => {
            const excerpt = chunks ? Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') : '';
            const ok = status >= 200 && status < 300;
            const error = ok
              ? null
              : status >= 300 && status < 400
                ? `redirect (${status}) not followed`
                : `receiver answered ${status}`;
            finish(ok, status, error, excerpt);
          };
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        },
      );
      req.on('error', failed);
      req.end(body);
    };
    to.then(
      (dest) => {
        if (settled) return;
        if ('error' in dest) return finish(false, null, dest.error, null);
        try {
          post(dest);
        } catch (e) {
          // A request Node refuses to build (a header it cannot send) is this attempt's failure, not the worker's.
          failed(e as NodeJS.ErrnoException);
          req?.destroy();
        }
      },
      (e: Error) => finish(false, null, `destination check failed: ${e.message}`, null),
    );
  });
}
