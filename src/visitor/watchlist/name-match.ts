import anyAscii from 'any-ascii';
import transliterate from '@sindresorhus/transliterate';
import { doubleMetaphone } from 'double-metaphone';

/**
 * Watchlist name matching: which names are the same person's, and why (docs/decisions.md, "Watchlist matching
 * that knows names"). A name is cut into words; each word is compared with the other name's words by the first of
 * these rules that holds:
 * - `exact`: the same letters, case and accents ignored (`any-ascii`: García = Garcia, Jürgen = Jurgen);
 * - `transliteration`: the same after transliteration from another script (`any-ascii`: Дмитрий = Dmitriy,
 *   张伟 = Zhang Wei, one word per Han character) or the German/Scandinavian spelling (`@sindresorhus/transliterate`:
 *   Jürgen = Juergen, Søren = Soeren, Straße = Strasse);
 * - `variant`: the same consonants (vowels and doubled letters aside; c/k, x/ks, ph/f, sh/s, kh/k … alike; in words
 *   of 4 letters one vowel at most) and the same Double Metaphone key (`double-metaphone`: Muhammad = Mohammed, Hasan = Hassan, Dmitri = Dmitry), unless
 *   only a final vowel differs (María and Mario are two names); a word written in a script without written vowels
 *   (Arabic, Hebrew, Indic) needs the same consonants only (محمد = Mohammed);
 * - `spelling`: one letter added, dropped, changed or two swapped, in words of 5 letters or more, with the same first
 *   letter and the same consonants or key (Mensah = Mensha); not a final vowel;
 * - `initial`: a one-letter word is the other word's first letter (K. = Kwame);
 * - `joined`: two words of one name written as one in the other (Abdul Rahman = Abdulrahman, Al-Hassan = Alhassan).
 * Particles (al, bin, de, van, von, …) need not match. Names match when every word of the shorter name matches a
 * different word of the longer one (the rest count as omitted: María García = María José García López), at least
 * two words match and one of them not by initial, with at most one `spelling`; a name of one word matches only a
 * name of one word.
 */
export type WordRule = 'exact' | 'transliteration' | 'variant' | 'spelling' | 'initial' | 'joined';

/** Weight of each rule in the score (mean over the matched words, times 0.9 when words were omitted). */
const WEIGHT: Record<WordRule, number> = {
  exact: 1,
  transliteration: 0.97,
  joined: 0.95,
  variant: 0.9,
  spelling: 0.8,
  initial: 0.7,
};

/** Words that are part of a name but not the person's own (they need not match). */
const PARTICLES = new Set([
  'al',
  'el',
  'bin',
  'ibn',
  'bint',
  'binti',
  'de',
  'da',
  'do',
  'das',
  'dos',
  'del',
  'della',
  'di',
  'du',
  'la',
  'le',
  'van',
  'von',
  'der',
  'den',
  'ter',
  'y',
  'e',
]);

/** One word of a name. */
export interface Word {
  /** as written (for explanations) */
  raw: string;
  /** lower-case ASCII spellings: any-ascii first, then the German/Scandinavian one when it differs */
  forms: string[];
  /** written in Latin letters */
  latin: boolean;
  /** written in a script that leaves vowels out (Arabic, Hebrew, Indic) */
  abjad: boolean;
  particle: boolean;
  /** two words of the name taken as one, to match one word of the other name */
  joined?: boolean;
}

const ascii = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const NON_LATIN = /[^\p{Script=Latin}\p{M}\p{N}]/u;
const ABJAD =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}]/u;

/** The words of a name: apostrophes dropped, one word per Han character, split at anything not a letter or digit. */
export function words(name: string): Word[] {
  const cut = name
    .normalize('NFC')
    .replace(/['’ʼ`]/g, '')
    .replace(/\p{Script=Han}/gu, ' $& ')
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w !== '');
  const out: Word[] = [];
  for (const raw of cut) {
    const forms = [...new Set([ascii(anyAscii(raw)), ascii(transliterate(raw))])].filter((f) => f !== '');
    if (forms.length === 0) continue;
    out.push({
      raw,
      forms,
      latin: !NON_LATIN.test(raw),
      abjad: ABJAD.test(raw),
      particle: PARTICLES.has(forms[0]),
    });
  }
  return out;
}

/**
 * Consonants in order: vowels and y dropped (w and y too for words from a script without written vowels), a silent
 * final h dropped, doubled letters once, like-sounding spellings alike (x/ks, ph/f, q/k, c/k, z/s, sh/s, kh/k, th/t …).
 */
export function consonants(form: string, loose = false): string {
  const key = loose ? `${form}/` : form;
  let c = CONSONANTS.get(key);
  if (c === undefined) {
    if (CONSONANTS.size >= MEMO) CONSONANTS.clear();
    CONSONANTS.set(key, (c = consonantsOf(form, loose)));
  }
  return c;
}
function consonantsOf(form: string, loose: boolean): string {
  return form
    .replace(/([aeiouy])h$/, '$1')
    .replace(/x/g, 'ks')
    .replace(/ph/g, 'f')
    .replace(/q/g, 'k')
    .replace(/c(?!h)/g, 'k')
    .replace(/z/g, 's')
    .replace(/([sckgtdb])h/g, '$1')
    .replace(loose ? /[aeiouyw]/g : /[aeiouy]/g, '')
    .replace(/(.)\1+/g, '$1');
}

/** Codes of words seen lately (screening compares the same entries' words again and again). */
const MEMO = 100_000;
const CONSONANTS = new Map<string, string>();
const METAPHONES = new Map<string, string[]>();
const metaphones = (form: string) => {
  let m = METAPHONES.get(form);
  if (!m) {
    const [a, b] = doubleMetaphone(form);
    if (METAPHONES.size >= MEMO) METAPHONES.clear();
    METAPHONES.set(form, (m = a === b ? [a] : [a, b]));
  }
  return m;
};

/**
 * One word ends in a (a silent final h aside) and the other does not: María / Mario, Olga / Oleg, Ivanova / Ivanov,
 * Krishna / Krishnan are two names, or two people of one family, not two spellings.
 */
function endingDiffers(a: string, b: string): boolean {
  const endsA = (s: string) => /ah?$/.test(s);
  return endsA(a) !== endsA(b);
}

/** Optimal string alignment distance, stopping once above 1 (only 0, 1 or 2 come back). */
function editDistanceUpTo1(a: string, b: string): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > 1) return 2;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const rest = (x: string, y: string) => (x === y ? 1 : 2);
  if (a.length === b.length) {
    // a changed letter counts only vowel for vowel (Nwosu / Nwoso); a changed consonant is another name (Khalid / Khalil)
    if (a.slice(i + 1) === b.slice(i + 1)) return /[aeiouy]/.test(a[i]) && /[aeiouy]/.test(b[i]) ? 1 : 2;
    if (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) return 1;
    return 2;
  }
  return a.length > b.length ? rest(a.slice(i + 1), b.slice(i)) : rest(a.slice(i), b.slice(i + 1));
}

export interface WordMatch {
  rule: WordRule;
  /** what the rule saw, quoting only the entry's word (e.g. the shared key) */
  detail?: string;
}

/** How word `v` (the visitor's) matches word `e` (the entry's), or null. */
export function compareWords(v: Word, e: Word): WordMatch | null {
  for (const a of v.forms)
    for (const b of e.forms)
      if (a === b)
        return v.latin && e.latin && a === v.forms[0] && b === e.forms[0]
          ? { rule: 'exact' }
          : { rule: 'transliteration' };
  const a = v.forms[0];
  const b = e.forms[0];
  if (a.length === 1 || b.length === 1)
    return a.length !== b.length && a[0] === b[0] ? { rule: 'initial' } : null;
  const abjad = v.abjad || e.abjad;
  for (const x of v.forms)
    for (const y of e.forms) {
      // short words (Li / Lu, Wei / Wen, Jon / Joan) match only as written or transliterated
      if (Math.min(x.length, y.length) < 4 || endingDiffers(x, y)) continue;
      const cx = consonants(x, abjad);
      if (cx === '' || cx !== consonants(y, abjad)) continue;
      // a word of 4 letters may change one vowel (Omar / Umar), not all (Meti / Mitu)
      const vowels = (w: string) => w.replace(/[^aeiouy]/g, '');
      if (!abjad && Math.min(x.length, y.length) < 5 && editDistanceUpTo1(vowels(x), vowels(y)) > 1) continue;
      if (abjad) return { rule: 'variant', detail: `same consonants '${cx}'` };
      const key = metaphones(x).find((k) => metaphones(y).includes(k));
      if (key) return { rule: 'variant', detail: `same consonants and Double Metaphone key ${key}` };
    }
  for (const x of v.forms)
    for (const y of e.forms) {
      if (x.length < 5 || y.length < 5 || x[0] !== y[0] || endingDiffers(x, y)) continue;
      if (editDistanceUpTo1(x, y) === 1) return { rule: 'spelling', detail: 'one letter apart' };
    }
  return null;
}

/** Rules by which two words are one word written two ways (not an initial, not a misspelling). */
const SAME_WORD: WordRule[] = ['exact', 'transliteration', 'variant'];
const join = (a: Word, b: Word): Word => ({
  raw: `${a.raw} ${b.raw}`,
  forms: [...new Set(a.forms.flatMap((x) => b.forms.map((y) => x + y)))],
  latin: a.latin && b.latin,
  abjad: a.abjad || b.abjad,
  particle: false,
});

export interface NameMatch {
  score: number;
  /** one line: each entry word and the rule it matched by, then the omitted words */
  explanation: string;
  rules: WordRule[];
}

/**
 * Whether the visitor's name `visitor` matches the entry's name `entry`; the explanation quotes only the entry's
 * words (never the visitor's, which erasure must be able to remove).
 */
export function matchNames(visitor: string | Word[], entry: string | Word[]): NameMatch | null {
  let vs = typeof visitor === 'string' ? words(visitor) : visitor;
  let es = typeof entry === 'string' ? words(entry) : entry;
  // joined words: two adjacent words of one name that are one word of the other
  const merge = (two: Word[], one: Word[]): Word[] => {
    for (let i = 0; i + 1 < two.length; i++) {
      const j = join(two[i], two[i + 1]);
      if (one.some((w) => !w.particle && SAME_WORD.includes(compareWords(w, j)?.rule ?? 'initial')))
        return [
          ...two.slice(0, i),
          { ...j, raw: `${two[i].raw}+${two[i + 1].raw}`, joined: true },
          ...two.slice(i + 2),
        ];
    }
    return two;
  };
  es = merge(es, vs);
  vs = merge(vs, es);
  const v = vs.filter((w) => !w.particle);
  const e = es.filter((w) => !w.particle);
  if (v.length === 0 || e.length === 0) return null;
  const single = v.length === 1 || e.length === 1;
  if (single && v.length !== e.length) return null;

  const pairs: { i: number; j: number; m: WordMatch }[] = [];
  for (let i = 0; i < v.length; i++)
    for (let j = 0; j < e.length; j++) {
      const m = compareWords(v[i], e[j]);
      if (!m) continue;
      const joined = v[i].joined || e[j].joined;
      pairs.push({
        i,
        j,
        m: joined ? { rule: 'joined', detail: m.rule === 'exact' ? undefined : m.rule } : m,
      });
    }
  pairs.sort((x, y) => WEIGHT[y.m.rule] - WEIGHT[x.m.rule]);
  const usedV = new Set<number>();
  const byEntry = new Map<number, WordMatch>();
  for (const p of pairs) {
    if (usedV.has(p.i) || byEntry.has(p.j)) continue;
    usedV.add(p.i);
    byEntry.set(p.j, p.m);
  }
  const matched = [...byEntry.values()];
  const need = Math.min(v.length, e.length);
  if (matched.length < need) return null;
  if (single) {
    if (!SAME_WORD.includes(matched[0].rule)) return null;
  } else {
    if (matched.length < 2) return null;
    if (matched.every((m) => m.rule === 'initial')) return null;
    if (matched.filter((m) => m.rule === 'spelling').length > 1) return null;
  }
  const omitted = e.filter((_, j) => !byEntry.has(j)).map((w) => w.raw);
  const mean = matched.reduce((s, m) => s + WEIGHT[m.rule], 0) / matched.length;
  const score = Math.round(mean * (omitted.length || v.length > e.length ? 0.9 : 1) * 100) / 100;
  const parts = e
    .map((w, j) => ({ w, m: byEntry.get(j) }))
    .filter((x) => x.m)
    .map(({ w, m }) => `${w.raw.replace('+', ' ')} ${m!.rule}${m!.detail ? ` (${m!.detail})` : ''}`);
  if (omitted.length) parts.push(`not given: ${omitted.map((w) => w.replace('+', ' ')).join(', ')}`);
  if (v.length > e.length) parts.push(`${v.length - e.length} more word(s) given`);
  return { score, explanation: parts.join('; '), rules: matched.map((m) => m.rule) };
}

/**
 * Keys of a name, so that two names that can match share one: for every two non-overlapping units (words, or two
 * adjacent words joined), a key of one code of each: the consonants of a word of 4 letters or more, the word itself
 * when shorter, its first 3 letters when it has 5 or more (for one-letter changes), and for initials `i~` and the
 * letter (a one-letter word) or `~` and the first letter (a longer word). The index holds a name's words' `~` codes
 * and its initials' `i~` codes; a screened name asks for the opposite (`side = 'query'`), so a full word's first
 * letter meets only initials, never every word that starts with it. Two initials make no key. A name of one word has
 * keys `1|<code>`.
 */
export function nameKeys(name: string | Word[], side: 'index' | 'query' = 'index'): string[] {
  const ws = typeof name === 'string' ? words(name) : name;
  const units: { from: number; to: number; w: Word }[] = [];
  ws.forEach((w, i) => {
    if (!w.particle) units.push({ from: i, to: i, w });
    if (i + 1 < ws.length) units.push({ from: i, to: i + 1, w: join(w, ws[i + 1]) });
  });
  const codes = (w: Word, initials: boolean) => {
    const out = new Set<string>();
    for (const f of w.forms) {
      if (f.length === 1) {
        if (side === 'query') out.add(`~${f}`);
        out.add(`i~${f}`);
        continue;
      }
      if (initials) out.add(side === 'index' ? `~${f[0]}` : `i~${f[0]}`);
      // words under 4 letters match only as written or transliterated; longer ones by their consonants too
      const c = f.length < 4 ? '' : consonants(f);
      out.add(c === '' ? `f:${f}` : `c:${c}`);
      if (c !== '') out.add(`c:${consonants(f, true)}`);
      // the last consonant dropped, from 4 on (Agyemang / Agyeman: an added or dropped ending still shares a code)
      if (c.length >= 4) out.add(`c:${c.slice(0, -1)}`);
    }
    return [...out];
  };
  const initial = (c: string) => c.startsWith('~') || c.startsWith('i~');
  const keys = new Set<string>();
  const solo = ws.filter((w) => !w.particle);
  if (solo.length === 1) for (const c of codes(solo[0], false)) keys.add(`1|${c}`);
  for (let a = 0; a < units.length; a++)
    for (let b = a + 1; b < units.length; b++) {
      const x = units[a];
      const y = units[b];
      if (y.from <= x.to) continue;
      for (const cx of codes(x.w, true))
        for (const cy of codes(y.w, true)) {
          if (initial(cx) && initial(cy)) continue;
          keys.add(cx < cy ? `${cx}|${cy}` : `${cy}|${cx}`);
        }
    }
  return [...keys];
}
