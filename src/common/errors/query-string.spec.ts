import { ApiError } from './api-error';
import { assertNoNul, assertWellFormedQuery } from './query-string';

/** 'ok', or the refusal's code and the locations it names. */
const refusal = (check: (url: string) => void, url: string) => {
  try {
    check(url);
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    return `${err.code} ${err.errors.map((f) => f.location).join(',')}`.trim();
  }
};
const locationOf = (url: string) => refusal(assertWellFormedQuery, url).replace(/^bad_request /, '');

describe('assertWellFormedQuery', () => {
  it('passes well-formed query strings, refuses bad percent-escapes naming the parameter', () => {
    for (const ok of [
      '/v1/x',
      '/v1/x?',
      '/v1/x?a=1&b=%20c+d',
      '/v1/x?name=%C3%A9',
      '/v1/x?a&b=',
      '/v1/x?q=100%25',
    ])
      expect(locationOf(ok)).toBe('ok');
    expect(locationOf('/v1/x?limit=1&cursor=%zz')).toBe('query.cursor');
    expect(locationOf('/v1/x?q=50%')).toBe('query.q');
    expect(locationOf('/v1/x?q=%FF')).toBe('query.q'); // not UTF-8
    expect(locationOf('/v1/x?%zz=1')).toBe('query');
  });
});

describe('assertNoNul', () => {
  it('refuses an encoded NUL by where it is, and only a real one', () => {
    expect(refusal(assertNoNul, '/public/v1/events?q=a%2500b')).toBe('ok'); // the text "%00", not a NUL
    expect(refusal(assertNoNul, '/public/v1/events?q=ab&x=%250')).toBe('ok');
    expect(refusal(assertNoNul, '/public/v1/events?page=1&q=a%00b')).toBe('validation_failed query.q');
    expect(refusal(assertNoNul, '/public/v1/events?q%00=1')).toBe('validation_failed query');
    expect(refusal(assertNoNul, '/public/v1/events?q+x=%00')).toBe('validation_failed query.q x');
    expect(refusal(assertNoNul, '/public/v1/campaigns/a%00?q=%00')).toBe('not_found');
  });
});
