/**
 * The redirect-URI rule of every client, however it registered (console, dynamic registration, metadata
 * document): an absolute HTTPS URI without a fragment, or `http://` to a loopback host (`localhost`, 127.0.0.0/8,
 * `[::1]`) for development. Returns the problem, or null when the URI is acceptable. Matching at the authorization
 * endpoint is exact (the engine's rule).
 */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string') return 'must be a string';
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (u.hash || uri.includes('#')) return 'must not contain a fragment';
  if (u.username || u.password) return 'must not contain a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return null;
  return 'must use https (http is allowed only for localhost and loopback addresses)';
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
