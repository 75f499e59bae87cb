import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Pass tokens: `<pass id>.<HMAC-SHA256 of the id, 128 bits, base64url>`, keyed from SESSION_SECRET. The
 * signature makes a token unguessable and unforgeable; revocation lives in the pass row (a resent pass revokes
 * the earlier ones), so a valid signature is necessary but not sufficient.
 */
export class PassTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('gatehouse pass v1').digest();
  }

  private mac(passId: string): Buffer {
    return createHmac('sha256', this.key).update(passId).digest().subarray(0, 16);
  }

  sign(passId: string): string {
    return `${passId}.${this.mac(passId).toString('base64url')}`;
  }

  /** The pass id of a well-signed token, else null. */
  passIdOf(token: string): string | null {
    const [id, sig, extra] = token.split('.');
    if (!id || !sig || extra !== undefined || !/^pass_[0-9A-Za-z]+$/.test(id)) return null;
    const given = Buffer.from(sig, 'base64url');
    const expected = this.mac(id);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : null;
  }

  link(siteUrl: string, passId: string): string {
    return `${siteUrl.replace(/\/$/, '')}/passes/${this.sign(passId)}`;
  }
}
