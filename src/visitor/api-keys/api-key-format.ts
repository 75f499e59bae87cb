import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../common/ids';

export type KeyKind = 'secret' | 'publishable';

/** `svc_sk_live_`, `svc_sk_test_`, `svc_pk_live_`, `svc_pk_test_` + 12 lookup characters + 32 secret characters. */
export function keyPrefix(kind: KeyKind, livemode: boolean): string {
  return `svc_${kind === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_`;
}

export const KEY_PREFIXES = [
  keyPrefix('secret', true),
  keyPrefix('secret', false),
  keyPrefix('publishable', true),
  keyPrefix('publishable', false),
];

const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 32;
const BODY = new RegExp(`^svc_(sk|pk)_(live|test)_([0-9A-Za-z]{${LOOKUP_LENGTH + SECRET_LENGTH}})$`);

export interface ParsedKey {
  kind: KeyKind;
  livemode: boolean;
  lookup: string;
}

/** A new key (about 262 bits of randomness); only its hash and lookup part are stored. */
export function generateKey(
  kind: KeyKind,
  livemode: boolean,
): { key: string; lookup: string; last4: string } {
  const lookup = randomBase62(LOOKUP_LENGTH);
  const key = `${keyPrefix(kind, livemode)}${lookup}${randomBase62(SECRET_LENGTH)}`;
  return { key, lookup, last4: key.slice(-4) };
}

export function parseKey(token: string): ParsedKey | null {
  const m = BODY.exec(token);
  if (!m) return null;
  return {
    kind: m[1] === 'sk' ? 'secret' : 'publishable',
    livemode: m[2] === 'live',
    lookup: m[3].slice(0, LOOKUP_LENGTH),
  };
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function keyMatches(key: string, storedHash: Buffer): boolean {
  const h = hashKey(key);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}
