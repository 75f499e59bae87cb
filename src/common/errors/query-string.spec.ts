import { ApiError } from './api-error';
import { assertWellFormedQuery } from './query-string';

const locationOf = (url: string) => {
  try {
    assertWellFormedQuery(url);
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe('bad_request');
    return (e as ApiError).errors[0].location;
  }
};

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
