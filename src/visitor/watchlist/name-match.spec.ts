import { namePairs, score } from '../../../bench/name-pairs';
import { matchNames, nameKeys } from './name-match';

describe('watchlist name matching over the labelled pairs', () => {
  const pairs = namePairs();

  it('reaches recall ≥ 0.95 and precision ≥ 0.90 on the labelled set, and every match shares an index key', () => {
    const s = score(pairs, (p) => matchNames(p.visitor, p.entry) !== null);
    // eslint-disable-next-line no-console
    if (process.env.NAMES_DEBUG)
      console.log(
        s.precision,
        s.recall,
        s.wrong
          .map(
            (w) => `${w.visitor} | ${w.entry} | ${w.match} ${JSON.stringify(matchNames(w.visitor, w.entry))}`,
          )
          .join('\n'),
      );
    expect(s.pairs).toBeGreaterThanOrEqual(200);
    expect(s.recall).toBeGreaterThanOrEqual(0.95);
    expect(s.precision).toBeGreaterThanOrEqual(0.9);
    const unreachable = pairs.filter((p) => {
      if (!matchNames(p.visitor, p.entry)) return false;
      const keys = new Set(nameKeys(p.entry));
      return !nameKeys(p.visitor).some((k) => keys.has(k));
    });
    expect(unreachable).toEqual([]);
  });
});
