const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page the engine shows when it cannot send an error back to the app (unknown client, bad redirect URI). */
export function renderOAuthError(error: string, description?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cannot connect the app</title></head>
<body><main><h1>This app cannot be connected</h1><p>${escape(description ?? error)}</p>
<p>Error code: <code>${escape(error)}</code></p></main></body></html>`;
}
