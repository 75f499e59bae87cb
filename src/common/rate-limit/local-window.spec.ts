import { LocalWindowCounter } from './local-window';

describe('LocalWindowCounter', () => {
  it('blocks past the limit within a window, starts afresh after it, and keeps buckets apart', () => {
    let now = 1_000_000;
    const c = new LocalWindowCounter(() => now);
    const hits = () => [1, 2, 3].map(() => c.increment('a', 60_000, 2));
    expect(hits().map((r) => r.isBlocked)).toEqual([false, false, true]);
    expect(c.increment('b', 60_000, 2).isBlocked).toBe(false);
    now += 30_000;
    expect(c.increment('a', 60_000, 2)).toMatchObject({ isBlocked: true, timeToBlockExpire: 30 });
    now += 30_000;
    expect(c.increment('a', 60_000, 2)).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
  });

  it('peeks at a window without counting, and sees nothing once it has ended', () => {
    let now = 1_000_000;
    const c = new LocalWindowCounter(() => now);
    expect(c.peek('a')).toEqual({ hits: 0, msLeft: 0 });
    c.increment('a', 60_000, 5);
    c.increment('a', 60_000, 5);
    now += 20_000;
    expect(c.peek('a')).toEqual({ hits: 2, msLeft: 40_000 });
    expect(c.peek('a')).toEqual({ hits: 2, msLeft: 40_000 });
    now += 40_000;
    expect(c.peek('a')).toEqual({ hits: 0, msLeft: 0 });
  });
});
