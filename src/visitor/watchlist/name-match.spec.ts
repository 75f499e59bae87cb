import { namePairs, score } from '../../../bench/name-pairs';
import { matchNames, nameKeys } from './name-match';

describe('watchlist name matching over the labelled pairs', () => {
  const pairs = namePairs();

  it.each([
    ['K. Mensah', 'Kwame Mensah', 'Kwame initial; Mensah exact'],
    [
      'Muhammad Al Hasan',
      'Mohammed Al-Hassan',
      'Mohammed variant (same consonants and Double Metaphone key MHMT); Hassan variant (same consonants and Double Metaphone key HSN)',
    ],
    ['Juergen Schroeder', 'Jürgen Schröder', 'Jürgen transliteration; Schröder transliteration'],
    ['María García', 'María José García López', 'María exact; García exact; not given: José, López'],
    [
      'Дмитрий Иванов',
      'Dmitry Ivanov',
      'Dmitry variant (same consonants and Double Metaphone key TMTR); Ivanov transliteration',
    ],
    ['张伟', 'Zhang Wei', 'Zhang transliteration; Wei transliteration'],
    ['Abdulrahman Khalid', 'Abdul Rahman Khalid', 'Abdul Rahman joined; Khalid exact'],
    ['John Smithson', 'John Smith', null],
    ['Joan Smith', 'John Smith', null],
    ['Zhang Wen', 'Zhang Wei', null],
    ['Mario García', 'María García', null],
    ['Kwame', 'Kwame Mensah', null],
    ['Kwame Mensah', 'Kwame', null],
  ])('%s for %s: %s', (visitor, entry, explanation) => {
    expect(matchNames(visitor, entry)?.explanation ?? null).toBe(explanation);
  });

  it('reaches recall ≥ 0.95 and precision ≥ 0.90 on the labelled set, and every match shares an index key', () => {
    const s = score(pairs, (p) => matchNames(p.visitor, p.entry) !== null);
    const wrong = s.wrong.map((w) => `${w.visitor} / ${w.entry} (labelled ${w.match ? 'match' : 'no'})`);
    expect(s.pairs).toBeGreaterThanOrEqual(200);
    expect({ recall: s.recall >= 0.95, precision: s.precision >= 0.9, wrong }).toEqual({
      recall: true,
      precision: true,
      wrong,
    });
    const unreachable = pairs.filter((p) => {
      if (!matchNames(p.visitor, p.entry)) return false;
      const keys = new Set(nameKeys(p.entry, 'index'));
      return !nameKeys(p.visitor, 'query').some((k) => keys.has(k));
    });
    expect(unreachable).toEqual([]);
  });
});
