import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 3).toString('base64'));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed); // fresh IV each time
  });

  it('refuses tampered ciphertext and other keys', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 4).toString('base64')).open(sealed)).toThrow();
  });
});
