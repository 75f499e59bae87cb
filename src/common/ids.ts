import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes are drawn from the CSPRNG in blocks: one call per id costs more than the id itself. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let at = 0;

function randomByte(): number {
  if (at === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    at = 0;
  }
  return pool[at++];
}

/** Random base62 string of `length` characters, unbiased (rejection sampling on bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

/** Type-prefixed id such as `visit_3kT9…` (22 random base62 characters, about 131 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(22)}`;
}

/**
 * Request id (`Svc-Request-Id`): `req_` + the millisecond it was issued as 8 base62 digits + 14 random base62
 * characters (about 83 bits). Ids sort in time order (byte order: the alphabet is in ASCII order), so the request
 * log's index on them is appended at its right edge instead of touched at a random page for every request.
 */
export function newRequestId(now = Date.now()): string {
  let t = '';
  for (let i = 0, n = now; i < 8; i++, n = Math.floor(n / 62)) t = ALPHABET[n % 62] + t;
  return `req_${t}${randomBase62(14)}`;
}

/** Public error reference quoted to support: short, unambiguous, case-insensitive. */
export function newErrorRef(): string {
  const alphabet = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
  let s = '';
  for (const b of randomBytes(16)) {
    if (s.length === 12) break;
    s += alphabet[b % alphabet.length];
  }
  return `ERR-${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8, 12)}`;
}
