import { newRequestId } from './ids';

describe('newRequestId', () => {
  it('is req_ and 22 base62 characters, sorting in byte order as the times it was issued', () => {
    // Times across digit boundaries of the alphabet ('9' → 'A', 'Z' → 'a', 'z' → carry), and today's.
    const times = [0, 9, 10, 35, 36, 61, 62, 3843, 3844, 1_795_400_000_000, 1_795_400_000_001, 62 ** 8 - 1];
    const ids = times.map((t) => newRequestId(t));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    const byteOrder = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) as number);
    expect(byteOrder).toEqual(ids);
  });

  it('differs between two ids of the same millisecond (about 83 random bits)', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRequestId(1_795_400_000_000)));
    expect(ids.size).toBe(10_000);
    expect(new Set([...ids].map((id) => id.slice(0, 12))).size).toBe(1);
  });
});
