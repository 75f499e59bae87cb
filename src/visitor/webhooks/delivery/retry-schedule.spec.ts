import { MAX_ATTEMPTS, nextAttemptAt, RETRY_WAITS_MS } from './retry-schedule';

describe('retry schedule', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const waits = (random: () => number) =>
    RETRY_WAITS_MS.map((_, i) => nextAttemptAt(i, t0, random)!.getTime() - t0.getTime());

  it('is 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h without jitter, then stops', () => {
    expect(waits(() => 0.5)).toEqual([
      0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(nextAttemptAt(MAX_ATTEMPTS, t0)).toBeNull();
    const span = RETRY_WAITS_MS.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(span).toBeGreaterThan(26);
    expect(span).toBeLessThan(28);
  });

  it('varies each wait by at most ±10 %, reaching both bounds', () => {
    const low = waits(() => 0);
    const high = waits(() => 0.999999);
    RETRY_WAITS_MS.forEach((w, i) => {
      expect(low[i]).toBe(Math.round(w * 0.9));
      expect(high[i]).toBeLessThanOrEqual(Math.round(w * 1.1));
      expect(high[i]).toBeGreaterThanOrEqual(Math.round(w * 1.0999));
    });
    for (let n = 0; n < 1000; n++) {
      const i = n % MAX_ATTEMPTS;
      const w = nextAttemptAt(i, t0)!.getTime() - t0.getTime();
      expect(w).toBeGreaterThanOrEqual(Math.round(RETRY_WAITS_MS[i] * 0.9));
      expect(w).toBeLessThanOrEqual(Math.round(RETRY_WAITS_MS[i] * 1.1));
    }
  });
});
