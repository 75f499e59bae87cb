import { ApiError } from './api-error';

/**
 * Fastify's query-string parser keeps a malformed percent-escape (`%zz`, a lone `%`, bytes that are not UTF-8)
 * as literal text, so a handler would silently read something the client did not mean. This refuses such a
 * query string as `bad_request` at `query` (the `location` names the first bad parameter when it can).
 */
export function assertWellFormedQuery(url: string): void {
  const q = url.indexOf('?');
  if (q < 0) return;
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    try {
      decodeURIComponent(pair.replace(/\+/g, ' '));
    } catch {
      let name: string | null;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        name = null;
      }
      const location = name ? `query.${name}` : 'query';
      throw new ApiError(
        'bad_request',
        'The query string is malformed: a percent-escape is not valid (write % as %25 and use UTF-8).',
        [{ location, message: 'must be valid percent-encoded UTF-8' }],
      );
    }
  }
}

/** PostgreSQL text cannot hold the NUL character, so no value of either surface may contain it. */
export const NUL_MESSAGE = 'must not contain the NUL character';
/**
 * A UTF-16 surrogate without its partner (`"\ud800"` in a JSON body) is no character: UTF-8 cannot encode it and
 * PostgreSQL refuses its JSON escape. The runtime tells (`isWellFormed`) and mends (`toWellFormed`) such strings.
 */
export const LONE_SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate';

/**
 * Refuses a URL with an encoded NUL (`%00`): in the path, no resource can have that name (not_found); in the query
 * string, validation_failed at `query.<name>` (or `query` when the name itself holds it). Checked once for every
 * request, before any handler could pass the value to the database (which would fail the request with a 500).
 */
export function assertNoNul(url: string): void {
  if (url.indexOf('%00') === -1) return;
  const q = url.indexOf('?');
  if ((q < 0 ? url : url.slice(0, q)).includes('%00'))
    throw new ApiError('not_found', 'No resource has a path that contains the NUL character (%00).');
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair.includes('%00')) continue;
    const eq = pair.indexOf('=');
    let name: string | null;
    try {
      name = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    } catch {
      name = null;
    }
    throw ApiError.validation([
      { location: name && !name.includes('\0') ? `query.${name}` : 'query', message: NUL_MESSAGE },
    ]);
  }
}

/** The refusal of query parameters the served document does not list for the route, one error each. */
export function undocumentedParameters(names: string[]): ApiError {
  return ApiError.validation(
    names.map((name) => ({ location: `query.${name}`, message: 'is not a parameter of this endpoint' })),
  );
}
