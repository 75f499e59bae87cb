import { createHmac, createSecretKey, KeyObject, randomBytes } from 'node:crypto';

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a signing secret (`whsec_` + base64). */
const keyBytes = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/** The HMAC key of a signing secret, decoded once for the many signatures a worker makes with it. */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(keyBytes(secret));
}

/** `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>` per the Standard Webhooks scheme. */
export function sign(secret: string | KeyObject, id: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === 'string' ? keyBytes(secret) : secret;
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per active secret, space-separated (rotation overlap). */
export function signatureHeader(
  secrets: (string | KeyObject)[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' ');
}
