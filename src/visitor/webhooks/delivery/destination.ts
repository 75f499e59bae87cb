import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (injectable so tests can play a rebinding resolver). */
export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family as 4 | 6,
  }));

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function embeddedIpv4(address: string): string | null {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : null;
}

/** True for a public unicast address (IPv4-mapped IPv6 is judged by its IPv4 address). */
export function isPublicUnicast(address: string): boolean {
  const v4 = embeddedIpv4(address);
  if (v4) return isPublicUnicast(v4);
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export function isLoopback(address: string): boolean {
  const v4 = embeddedIpv4(address);
  const a = v4 ?? address;
  const family = isIP(a);
  return family !== 0 && LOOPBACK.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

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
 * Resolves the URL's host once and checks every address; returns the address to connect to. The caller
 * connects to exactly this address (DNS-rebinding safe: the address checked is the address used).
 */
export async function resolveDestination(
  url: URL,
  policy: DestinationPolicy,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses = literal
    ? [{ address: host, family: literal as 4 | 6 }]
    : await (policy.resolver ?? systemResolver)(host).catch(() => []);
  if (addresses.length === 0) throw new DestinationRefused(`host ${host} does not resolve`);
  for (const a of addresses) {
    const allowed = isPublicUnicast(a.address) || (policy.allowLocalTargets && isLoopback(a.address));
    if (!allowed)
      throw new DestinationRefused(`host ${host} resolves to a non-public address (${a.address})`);
  }
  return addresses[0];
}

/** Both checks, as done when an endpoint is saved. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  await resolveDestination(url, policy);
  return url;
}
