/** Path prefixes of the surfaces served by this one process. */
export const PREFIX = {
  public: '/public/v1',
  visitor: '/v1',
  mcp: '/mcp',
  console: '/console',
  docs: '/docs',
  health: '/health',
} as const;

/** Response headers a browser script may read on /public/ answers (CORS). */
export const EXPOSED_HEADERS =
  'Svc-Request-Id, ETag, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After';

export type SurfaceName = 'public' | 'visitor' | 'mcp' | 'console' | 'docs' | 'health' | 'other';

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The surface a URL belongs to. Everything under `/public` is the public surface (an unknown version such as
 * `/public/v2` is answered in the public envelope too); the other prefixes are exact.
 */
export function surfaceOf(url: string): SurfaceName {
  const path = pathOf(url);
  if (under(path, '/public')) return 'public';
  if (under(path, PREFIX.visitor)) return 'visitor';
  if (under(path, PREFIX.mcp)) return 'mcp';
  if (under(path, PREFIX.console)) return 'console';
  if (under(path, PREFIX.docs)) return 'docs';
  if (under(path, PREFIX.health)) return 'health';
  return 'other';
}
