/**
 * `token` (dot-separated, its signature last, base64url) with another signature: the signature's first byte
 * changed. Editing its last characters instead could leave the decoded bytes as they were (the characters written
 * in may be the ones there, and the unused bits of the last character are ignored when decoding).
 */
export function forgedSignature(token: string): string {
  const at = token.lastIndexOf('.');
  const sig = Buffer.from(token.slice(at + 1), 'base64url');
  sig[0] ^= 0xff;
  return `${token.slice(0, at + 1)}${sig.toString('base64url')}`;
}
