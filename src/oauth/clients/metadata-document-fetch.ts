import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { isLoopback, OutboundPolicy, resolveOutbound } from '../../common/net/outbound-address';

export interface MetadataFetchOptions extends OutboundPolicy {
  timeoutMs: number;
  maxBytes: number;
}

/**
 * The `fetch` the authorization server uses for Client ID Metadata Documents (oidc-provider's `fetch` option): a
 * GET over HTTPS only, through the same outbound-address rule as webhook destinations
 * (`common/net/outbound-address.ts`), checked as the connection is made: the host is resolved and refused unless
 * every address is globally routable, and the socket's `lookup` hands it exactly the address checked, so a DNS
 * answer cannot change between check and connect. No redirects, a time limit for the whole exchange, and
 * at most `maxBytes` of body (the engine also enforces its own limit, set to the same value). In development and
 * tests (`allowLoopback`), a loopback host is allowed and its certificate is not checked (a local test server).
 */
export function metadataDocumentFetch(opts: MetadataFetchOptions) {
  return async (
    input: string | URL,
    init: { headers?: ConstructorParameters<typeof Headers>[0]; signal?: AbortSignal } = {},
  ) => {
    const url = new URL(String(input));
    if (url.protocol !== 'https:') throw new Error('metadata documents are fetched over https only');
    const target = await resolveOutbound(url.hostname, opts).catch((e: Error) => {
      throw new Error(`metadata document host refused: ${e.message}`);
    });
    const lookup: LookupFunction = (_host, options, cb) => {
      if ((options as { all?: boolean }).all)
        (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
      else cb(null, target.address, target.family);
    };
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Gatehouse-OAuth/1' };
    new Headers(init.headers).forEach((v, k) => {
      if (v !== '') headers[k] = v;
    });
    const signal = AbortSignal.any([
      AbortSignal.timeout(opts.timeoutMs),
      ...(init.signal ? [init.signal] : []),
    ]);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpsRequest(url, {
        method: 'GET',
        headers,
        lookup,
        signal,
        minVersion: 'TLSv1.2',
        agent: false,
        rejectUnauthorized: !uncheckedCertificate(target.address, opts),
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    }).catch((e: Error) => {
      throw new Error(`metadata document fetch failed: ${e.message}`);
    });
    const status = res.statusCode ?? 0;
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > opts.maxBytes) {
        res.destroy();
        throw new Error('metadata document fetch failed: response too large');
      }
      chunks.push(chunk);
    }
    out.delete('content-length');
    return new Response(status === 204 || status === 304 ? null : publicByDefault(Buffer.concat(chunks)), {
      status: status >= 200 && status <= 599 ? status : 502,
      headers: out,
    });
  };
}

/**
 * A metadata document that names no `token_endpoint_auth_method` describes a public client (`none`): the draft
 * forbids the shared-secret methods that the registration default (`client_secret_basic`) would give it.
 */
function publicByDefault(body: Buffer): Buffer {
  try {
    const doc = JSON.parse(body.toString('utf8')) as unknown;
    if (doc && typeof doc === 'object' && !Array.isArray(doc) && !('token_endpoint_auth_method' in doc))
      return Buffer.from(JSON.stringify({ ...doc, token_endpoint_auth_method: 'none' }));
  } catch {
    // not JSON: the engine refuses it
  }
  return body;
}

/** Whether a certificate check may be skipped for this address (loopback, in development and tests only). */
export const uncheckedCertificate = (address: string, policy: OutboundPolicy) =>
  policy.allowLoopback && isLoopback(address);
