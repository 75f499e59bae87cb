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
