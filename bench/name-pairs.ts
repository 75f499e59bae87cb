import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A labelled pair of bench/fixtures/watchlist-names.tsv: the visitor's name, the entry's, whether they match. */
export interface NamePair {
  visitor: string;
  entry: string;
  match: boolean;
  culture: string;
}

/** The labelled name pairs (shared by the watchlist tests and `npm run bench -- watchlist`). */
export function namePairs(root = process.cwd()): NamePair[] {
  const text = readFileSync(join(root, 'bench/fixtures/watchlist-names.tsv'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [visitor, entry, label, culture] = l.split('\t');
      if (label !== 'match' && label !== 'no') throw new Error(`bad label in ${l}`);
      return { visitor, entry, match: label === 'match', culture };
    });
}

/** Precision and recall of `predict` over the pairs, with the pairs it got wrong. */
export function score(pairs: NamePair[], predict: (p: NamePair) => boolean) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const wrong: (NamePair & { predicted: boolean })[] = [];
  for (const p of pairs) {
    const got = predict(p);
    if (got && p.match) tp++;
    if (got && !p.match) fp++;
    if (!got && p.match) fn++;
    if (got !== p.match) wrong.push({ ...p, predicted: got });
  }
  return { pairs: pairs.length, precision: tp / (tp + fp), recall: tp / (tp + fn), wrong };
}
