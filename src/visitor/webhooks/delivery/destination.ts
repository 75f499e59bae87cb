import type { LookupFunction } from 'node:net';
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

/** A URL that passed both checks, and the address its connections go to (`lookup` answers only that). */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
  lookup: LookupFunction;
}

/** A socket lookup that answers `target` whatever the name: the connection goes to the address checked. */
function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_host, options, cb) => {
    if ((options as { all?: boolean }).all)
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else cb(null, target.address, target.family);
  };
}

/** Both checks of a URL about to be sent to; never throws (a refusal or failure is the delivery's error). */
export async function checkedDestination(
  raw: string,
  policy: DestinationPolicy,
): Promise<CheckedDestination | { error: string }> {
  try {
    const url = checkUrlShape(raw, policy);
    const target = await resolveDestination(url, policy);
    return { url, address: target.address, family: target.family, lookup: pinnedLookup(target) };
  } catch (e) {
    return {
      error:
        e instanceof DestinationRefused
          ? `destination refused: ${e.message}`
          : `destination check failed: ${(e as Error).message}`,
    };
  }
}

/**
 * The delivery path's checked destinations, per URL, for at most `ttlMs`: a worker sending thousands of POSTs a
 * second to one endpoint checks (and resolves) its URL once per `ttlMs` instead of once per POST. Only accepted
 * URLs are kept, so a connection still goes only to an address that passed the check, at most `ttlMs` ago; a
 * changed URL is another key and is checked afresh. Concurrent sends to an unchecked URL share one check.
 */
export class DestinationCache {
  private readonly entries = new Map<
    string,
    { until: number; checked: Promise<CheckedDestination | { error: string }> }
  >();

  constructor(
    private readonly policy: () => DestinationPolicy,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(raw: string, now = performance.now()): Promise<CheckedDestination | { error: string }> {
    const hit = this.entries.get(raw);
    if (hit && hit.until > now) return hit.checked;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const checked = checkedDestination(raw, this.policy());
    this.entries.set(raw, { until: now + this.ttlMs, checked });
    void checked.then((c) => {
      if ('error' in c && this.entries.get(raw)?.checked === checked) this.entries.delete(raw);
    });
    return checked;
  }

  /** Forgets every check (the policy or resolver changed). */
  clear(): void {
    this.entries.clear();
  }
}
