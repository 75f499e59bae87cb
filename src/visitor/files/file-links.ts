import { createHmac, timingSafeEqual } from 'node:crypto';

export type LinkMethod = 'PUT' | 'GET';

/** What a valid link allows: one method on one file, until `expiresAt`. */
export interface LinkGrant {
  fileId: string;
  method: LinkMethod;
  expiresAt: Date;
}

/**
 * Signed links of the local file driver: `<file id>.<method>.<expiry, unix seconds>.<HMAC-SHA256, 128 bits>`, the
 * MAC over all three with a key derived from SESSION_SECRET. A link is bound to one file and one method and
 * expires; any edit breaks the MAC.
 */
export class FileLinks {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('gatehouse file link v1').digest();
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 16);
  }

  sign(g: LinkGrant): string {
    const body = `${g.fileId}.${g.method}.${Math.floor(g.expiresAt.getTime() / 1000)}`;
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /**
   * The grant of a well-signed token, else `tampered`; `expired` once its time has passed (checked after the
   * signature, so an edited expiry is `tampered`).
   */
  verify(token: string, now: Date): LinkGrant | 'tampered' | 'expired' {
    const parts = token.split('.');
    if (parts.length !== 4) return 'tampered';
    const [fileId, method, exp, sig] = parts;
    const expected = this.mac(`${fileId}.${method}.${exp}`);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'tampered';
    if (!/^file_[0-9A-Za-z]+$/.test(fileId) || (method !== 'PUT' && method !== 'GET') || !/^\d+$/.test(exp))
      return 'tampered';
    const expiresAt = new Date(Number(exp) * 1000);
    if (expiresAt.getTime() <= now.getTime()) return 'expired';
    return { fileId, method, expiresAt };
  }
}
