const SECRET_PARAM = /(key|token|secret|password|passwd|code|signature|sig|auth|session|cookie|credential)/i;

/**
 * A query string URLSearchParams writes back as it is: `name=value` pairs of the characters it leaves unescaped
 * (ASCII letters and digits, `*-._`).
 */
const PLAIN_QUERY = /^[\w*.-]+=[\w*.-]*(?:&[\w*.-]+=[\w*.-]*)*$/;

/** Path plus query string with the values of secret-looking parameters replaced, for logs. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url.slice(0, 2048);
  // Nothing to redact and nothing to re-encode (the request log writes this for every request): as it came.
  const raw = url.slice(q + 1);
  if (PLAIN_QUERY.test(raw) && !SECRET_PARAM.test(raw)) return url.slice(0, 2048);
  const params = new URLSearchParams(raw);
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAM.test(name)) params.set(name, '[redacted]');
  }
  const query = params.toString();
  return `${url.slice(0, q)}${query ? `?${query}` : ''}`.slice(0, 2048);
}
