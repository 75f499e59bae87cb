/**
 * `part` of `whole` in percent with two decimals (0 when there is no whole): campaign and petition progress.
 * Rounded to the nearest hundredth, except that it never shows 100 before the goal is reached (27,999 of 28,000
 * is 99.99, not 100): a short part is at most 99.99. At or past the goal it is the rounded figure (100 or more).
 */
export const progressPercent = (part: number, whole: number | null): number => {
  if (!whole) return 0;
  const percent = Math.round((part / whole) * 10_000) / 100;
  return part < whole ? Math.min(percent, 99.99) : percent;
};
