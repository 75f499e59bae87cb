/** `part` of `whole` in percent with two decimals (0 when there is no whole): campaign and petition progress. */
export const progressPercent = (part: number, whole: number | null): number =>
  whole ? Math.round((part / whole) * 10_000) / 100 : 0;
