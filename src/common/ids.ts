import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string of `length` characters, unbiased (rejection sampling on bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Type-prefixed id such as `req_3kT9…` (about 131 bits of randomness). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(22)}`;
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
