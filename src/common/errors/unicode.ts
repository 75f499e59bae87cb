/**
 * A UTF-16 surrogate without its partner (`"\ud800"` in a JSON body): JavaScript strings may hold one, but it is
 * no character, UTF-8 cannot encode it and PostgreSQL refuses its JSON escape (`\ud800` makes `::jsonb` fail).
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

export const LONE_SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate';

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** `s` with every lone surrogate replaced by U+FFFD (what encoding it as UTF-8 would write anyway). */
export function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\ufffd') : s;
}
