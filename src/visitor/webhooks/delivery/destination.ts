import type { RequestOptions } from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { OutboundAddressRefused, Resolver, resolveOutbound } from '../../../common/net/outbound-address';

export type { Resolver } from '../../../common/net/outbound-address';

export class DestinationRefused extends Error {}

export interface DestinationPolicy {
  /** Development and tests: also allow `http://` and loopback addresses. */
  allowLocalTargets: boolean;
  resolver?: Resolver;
}

/** The URL's own rules (scheme, credentials); message is suitable for `errors[].message` at body.url. */
export function checkUrlShape(raw: string, policy: DestinationPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('must be an absolute URL');
  }
  const schemes = policy.allowLocalTargets ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new DestinationRefused('must use https');
  if (url.username || url.password) throw new DestinationRefused('must not contain a user name or password');
  if (!url.hostname) throw new DestinationRefused('must have a host');
  return url;
}

/**
 * Resolves the URL's host once and checks every address against the outbound address rule
 * (`common/net/outbound-address.ts`: globally routable unicast only; loopback too with WEBHOOK_ALLOW_LOCAL_TARGETS);
 * returns the address to connect to. The caller connects to exactly this address (DNS-rebinding safe: the address
 * checked is the address used).
 */
export async function resolveDestination(
  url: URL,
  policy: DestinationPolicy,
): Promise<{ address: string; family: 4 | 6 }> {
  try {
    return await resolveOutbound(url.hostname, {
      allowLoopback: policy.allowLocalTargets,
      resolver: policy.resolver,
    });
  } catch (e) {
    throw e instanceof OutboundAddressRefused ? new DestinationRefused(e.message) : e;
  }
}

/** Both checks, as done when an endpoint is saved. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  await resolveDestination(url, policy);
  return url;
}

/**
 * A URL that passed both checks. `request` is the POST's request options but its headers and agent, made once for
 * the many POSTs of a batch: the URL's parts, the TLS floor for https, and a `lookup` that answers only the address
 * checked, so every new connection goes there.
 */
export interface CheckedDestination {
  url: URL;
  request: RequestOptions;
}

/** A socket lookup that answers `target` whatever the name: the connection goes to the address checked. */
function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else cb(null, target.address, target.family);
  };
}

/** Both checks of a URL under way, or their refusal or failure (the attempt's error); never rejects. */
export type DestinationCheck = Promise<CheckedDestination | { error: string }>;

/** Both checks of a URL about to be sent to; never throws (a refusal or failure is the delivery's error). */
export async function checkedDestination(raw: string, policy: DestinationPolicy): DestinationCheck {
  try {
    const url = checkUrlShape(raw, policy);
    const target = await resolveDestination(url, policy);
    const { protocol, hostname, port, path } = urlToHttpOptions(url);
    return {
      url,
      request: {
        protocol,
        hostname,
        port,
        path,
        method: 'POST',
        lookup: pinnedLookup(target),
        ...(protocol === 'https:' ? { minVersion: 'TLSv1.2' } : {}),
      },
    };
  } catch (e) {
    return {
      error:
        e instanceof DestinationRefused
          ? `destination refused: ${e.message}`
          : `destination check failed: ${(e as Error).message}`,
    };
  }
}
