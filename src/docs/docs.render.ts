import {
  ERROR_CODES,
  PUBLIC_CODES,
  VisitorErrorCode,
  publicStatus,
  visitorCode,
  visitorCodeInfo,
} from '../common/errors/error-codes';

export const esc = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Inline code spans from the Markdown-ish descriptions. */
const md = (s: unknown): string => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
code,pre{font:13px ui-monospace,monospace;background:#f3f4f6;padding:.1em .3em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}td,th{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
h2{border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2.5rem}h3{margin-top:1.8rem}.m{font-weight:700;text-transform:uppercase;color:#0550ae}
nav a{margin-right:1rem}ul.s{margin:.2rem 0;padding-left:1.2rem}`;

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><nav><a href="/docs">Docs home</a><a href="/docs/public/">Public content API</a><a href="/docs/visitor/">Visitor-management API</a><a href="/docs/errors">Errors</a></nav>${body}</body></html>`;
}

export function indexPage(docsUrl: string): string {
  return page(
    'Gatehouse API documentation',
    `<h1>Gatehouse API documentation</h1>
<ul>
<li><a href="/docs/public/">Public content API</a> (<code>/public/v1</code>, version 1.0.0) — <a href="/public/v1/openapi.json">openapi.json</a></li>
<li><a href="/docs/visitor/">Visitor-management API</a> (<code>/v1</code>, version 1.0.0-preview) — <a href="/v1/openapi.json">openapi.json</a>, <a href="/docs/openapi.yaml">openapi.yaml</a></li>
<li><a href="/docs/errors">Error codes of both APIs</a> (problem <code>type</code> URLs point here: <code>${esc(docsUrl)}/errors#&lt;code&gt;</code>)</li>
</ul>`,
  );
}

export function errorsPage(): string {
  const visitor = [...new Set(ERROR_CODES.map(visitorCode))] as VisitorErrorCode[];
  const vRows = visitor.map((c) => {
    const i = visitorCodeInfo(c);
    return `<tr id="${c}"><td><code>${c}</code></td><td>${i.status}</td><td>${md(i.cause)}</td><td>${md(i.retry)}</td></tr>`;
  });
  const pRows = PUBLIC_CODES.map((c) => {
    const i = publicStatus(c);
    return `<tr id="${c}"><td><code>${c}</code></td><td>${i.status}</td><td>${md(i.meaning)}</td></tr>`;
  });
  return page(
    'Error codes',
    `<h1>Error codes</h1>
<h2 id="visitor">Visitor-management API (<code>/v1</code>)</h2>
<p>Errors are RFC 9457 problem details (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>instance</code>, <code>code</code>, <code>request_id</code> and <code>errors[]</code> of <code>{location, message}</code>. Branch on <code>code</code>; handle unknown codes by <code>status</code>.</p>
<table><tr><th>Code</th><th>Status</th><th>Cause</th><th>Retry</th></tr>${vRows.join('')}</table>
<h2 id="public">Public content API (<code>/public/v1</code>)</h2>
<p>Errors are <code>{"ok": false, "error": {"code", "message", "ref"}}</code>. Quote <code>ref</code> to support.</p>
<table><tr><th>Code</th><th>Status</th><th>When</th></tr>${pRows.join('')}</table>`,
  );
}
