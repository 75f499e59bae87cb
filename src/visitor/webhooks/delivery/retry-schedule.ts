/** Waits before attempts 1…8 (after the previous attempt), from the spec: about 27 hours in all. */
export const RETRY_WAITS_MS: readonly number[] = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length;
export const JITTER = 0.1;
/** An endpoint whose every attempt has failed for this long is disabled (`disabled_reason: failing`). */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/**
 * When the next attempt is due after `attemptsMade` attempts (0 = the first, immediate), or null when all
 * eight are used. Each wait varies by up to ±10 % (`random` in [0, 1)).
 */
export function nextAttemptAt(
  attemptsMade: number,
  from: Date,
  random: () => number = Math.random,
): Date | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const wait = RETRY_WAITS_MS[attemptsMade];
  const factor = 1 + (random() * 2 - 1) * JITTER;
  return new Date(from.getTime() + Math.round(wait * factor));
}
