const SECRET_PARAM = /(key|token|secret|password|passwd|code|signature|sig|auth|session|cookie|credential)/i;

/** Path plus query string with the values of secret-looking parameters replaced, for logs. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url.slice(0, 2048);
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAM.test(name)) params.set(name, '[redacted]');
  }
  const query = params.toString();
  return `${url.slice(0, q)}${query ? `?${query}` : ''}`.slice(0, 2048);
}
