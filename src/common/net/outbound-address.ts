import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one rule for every connection the service opens to an address a customer chose (webhook destinations today,
 * OAuth client metadata documents next): only globally routable unicast addresses, decided by an allow-list
 * rather than by listing bad ranges. ipaddr.js (a maintained library that tracks the IANA special-purpose
 * registries) classifies the address:
 * - IPv4: accepted only when it lies in none of the special-purpose ranges (private, loopback, link-local,
 *   shared/CGN, documentation, benchmarking, multicast, reserved, broadcast, 0/8, AS112, AMT);
 * - IPv6: accepted only inside 2000::/3 (global unicast) and outside every special-purpose block there (Teredo,
 *   6to4, documentation, benchmarking, ORCHID, segment routing, the rest of 2001::/23 …). Everything outside
 *   2000::/3 is refused, so IPv4-compatible (`::/96`), IPv4-translated (`::ffff:0:0:0/96`), NAT64, unique-local,
 *   link-local and multicast addresses are all refused without being named;
 * - an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) connects to its IPv4 address and is judged as that address.
 */

/** Resolves a host name to every address it has (injectable so tests can play a rebinding resolver). */
export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family as 4 | 6,
  }));

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The address ipaddr.js reads from a strict textual IP address (Node's `isIP`), or null. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIP(address) === 0) return null;
  try {
    const ip = ipaddr.parse(address);
    return ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress() ? ip.toIPv4Address() : ip;
  } catch {
    return null;
  }
}

/** True for a globally routable unicast address (see above). */
export function isGlobalUnicast(address: string): boolean {
  const ip = parse(address);
  if (!ip || ip.range() !== 'unicast') return false;
  return ip.kind() === 'ipv4' || ip.match(GLOBAL_UNICAST_V6);
}

/** 127.0.0.0/8 and ::1 (IPv4-mapped included): what development and tests may allow in addition. */
export function isLoopback(address: string): boolean {
  return parse(address)?.range() === 'loopback';
}

export class OutboundAddressRefused extends Error {}

export interface OutboundPolicy {
  /** Development and tests: loopback addresses are allowed too. */
  allowLoopback: boolean;
  resolver?: Resolver;
}

/**
 * Resolves `host` (a name, or an address literal, IPv6 with or without brackets) once and checks every address it
 * has; returns the address to connect to. The caller must connect to exactly this address (DNS-rebinding safe:
 * the address checked is the address used). Throws OutboundAddressRefused when the host does not resolve or any
 * of its addresses is refused.
 */
export async function resolveOutbound(
  host: string,
  policy: OutboundPolicy,
): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const literal = isIP(bare);
  const addresses = literal
    ? [{ address: bare, family: literal as 4 | 6 }]
    : await (policy.resolver ?? systemResolver)(bare).catch(() => []);
  if (addresses.length === 0) throw new OutboundAddressRefused(`host ${bare} does not resolve`);
  for (const a of addresses) {
    const allowed = isGlobalUnicast(a.address) || (policy.allowLoopback && isLoopback(a.address));
    if (!allowed)
      throw new OutboundAddressRefused(`host ${bare} resolves to a non-public address (${a.address})`);
  }
  return addresses[0];
}
