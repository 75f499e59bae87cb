import { Agent as HttpAgent, request as httpRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrlShape, DestinationPolicy, DestinationRefused, resolveDestination } from './destination';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first bytes of the response body, for the delivery log. */
  excerpt: string | null;
}

const EXCERPT_BYTES = 1024;

// Connections are kept alive and reused per host and port. A pooled connection goes to an address that was
// checked when it was opened; every new connection is checked again (the lookup hook below). Free sockets are
// kept up to the pool size: a worker spends much of each delivery on its database round trips, so many of its
// sockets are idle at any moment, and a smaller free list closed some only to open new ones for the next jobs.
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
 * POSTs one signed webhook. The host is resolved and checked here, and the connection goes to exactly the
 * checked address (the `lookup` hook returns it), so a DNS answer cannot change between check and connect.
 * Redirects are never followed; any non-2xx, a redirect, a timeout, a connection or TLS error is a failure.
 */
export async function sendWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: DestinationPolicy & { timeoutMs: number },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  let target: { address: string; family: 4 | 6 };
  try {
    url = checkUrlShape(rawUrl, opts);
    target = await resolveDestination(url, opts);
  } catch (e) {
    const message =
      e instanceof DestinationRefused
        ? `destination refused: ${e.message}`
        : `destination check failed: ${(e as Error).message}`;
    return { ok: false, statusCode: null, durationMs: elapsed(), error: message, excerpt: null };
  }
  const lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else cb(null, target.address, target.family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    const req = request(
      url,
      {
        method: 'POST',
        lookup,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Gatehouse-Webhooks/1',
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
        minVersion: 'TLSv1.2',
        agent: url.protocol === 'https:' ? agents.https : agents.http,
      } as Parameters<typeof httpsRequest>[1],
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(c);
          size += c.length;
          if (size >= EXCERPT_BYTES) res.destroy();
        });
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          const ok = status >= 200 && status < 300;
          const error = ok
            ? null
            : status >= 300 && status < 400
              ? `redirect (${status}) not followed`
              : `receiver answered ${status}`;
          finish({ ok, statusCode: status, error, excerpt });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({
        ok: false,
        statusCode: null,
        error: `timeout: no answer within ${opts.timeoutMs} ms`,
        excerpt: null,
      });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      finish({ ok: false, statusCode: null, error: `${e.code ?? 'error'}: ${e.message}`, excerpt: null }),
    );
    req.end(body);
  });
}
