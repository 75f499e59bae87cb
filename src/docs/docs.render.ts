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
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><nav aria-label="Documentation"><a href="/docs">Docs home</a><a href="/docs/quickstart">Quickstart</a><a href="/docs/public/">Public content API</a><a href="/docs/visitor/">Visitor-management API</a><a href="/docs/webhooks">Webhooks</a><a href="/docs/errors">Errors</a><a href="/docs/connect-an-app">Connect an app</a></nav><main>${body}</main></body></html>`;
}

export function indexPage(docsUrl: string): string {
  return page(
    'Gatehouse API documentation',
    `<h1>Gatehouse API documentation</h1>
<ul>
<li><a href="/docs/quickstart">Quickstart</a>: a test key, a first visit with curl and a first verified webhook, in 10 minutes</li>
<li><a href="/docs/webhooks">Webhooks</a>: retries, the disable rule, ordering and duplicates, and every event type with an example</li>
<li><a href="/docs/public/">Public content API</a> (<code>/public/v1</code>, version 1.0.0) — <a href="/public/v1/openapi.json">openapi.json</a></li>
<li><a href="/docs/visitor/">Visitor-management API</a> (<code>/v1</code>, version 1.0.0-preview) — <a href="/v1/openapi.json">openapi.json</a>, <a href="/docs/openapi.yaml">openapi.yaml</a></li>
<li><a href="/docs/connect-an-app">Connect an app</a>: OAuth 2.1 for apps other organisations connect and AI assistants</li>
<li><a href="/docs/connect-an-ai-assistant">Connect an AI assistant</a>: the tool server at <code>/mcp</code> and its tools</li>
<li>TypeScript client library: <code>@gatehouse/client</code>, in this service's repository under <code>clients/typescript</code> (not published to npm): typed <code>/v1</code> calls generated from <a href="/v1/openapi.json">openapi.json</a>, an idempotency key on every POST kept across retries, retries on 429 and 503, async iteration over pages, errors typed by code, webhook verification and OAuth token refresh; its README has a 10-line example</li>
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

/** The "Connect an app" guide: how an app (or an AI assistant) gets an OAuth token for /v1. */
export function connectAppPage(urls: { authUrl: string; appUrl: string; baseUrl: string }): string {
  const u = (s: string) => `<code>${esc(s)}</code>`;
  return page(
    'Connect an app',
    `<h1>Connect an app</h1>
<p>Apps that other organisations connect (including AI assistants and MCP clients) call the visitor-management API with an OAuth 2.1 access token instead of an API key. The token acts for the person who connected the app: it has the scopes they allowed, and their role limits what it may do.</p>
<h2>1. Discover</h2>
<p>Any call to ${u(`${urls.baseUrl}/v1`)} or to the tool server ${u(`${urls.baseUrl}/mcp`)} without a token answers <code>401</code> with <code>WWW-Authenticate: Bearer resource_metadata="…", scope="…"</code> (the scopes the call needs). That document (${u(`${urls.baseUrl}/.well-known/oauth-protected-resource/v1`)} or ${u(`${urls.baseUrl}/.well-known/oauth-protected-resource/mcp`)}, RFC 9728) names the resource and the authorization server, ${u(urls.authUrl)}, whose metadata is at ${u(`${urls.authUrl}/.well-known/oauth-authorization-server`)} (RFC 8414). Browser-based clients may read these documents, register and use the token endpoint cross-origin (CORS, without credentials).</p>
<h2>2. Identify your app</h2>
<ul>
<li><strong>Client ID Metadata Document</strong> (preferred for assistants): use an HTTPS URL with a path as your <code>client_id</code>; it must serve JSON with at least <code>client_id</code> (that same URL), <code>client_name</code> and <code>redirect_uris</code>, and <code>"token_endpoint_auth_method": "none"</code>. Only the listed redirect URIs are accepted.</li>
<li><strong>Registered app</strong>: Owners and Admins of Pro and Enterprise organisations register apps in the console (name, redirect URIs, confidential or public). A confidential app gets a secret, shown once.</li>
<li><strong>Dynamic client registration</strong> (RFC 7591, deprecated but kept): <code>POST</code> ${u(`${urls.authUrl}/oauth/register`)}.</li>
<li>A registration or metadata document may carry <code>scope</code>: only scopes of the metadata's <code>scopes_supported</code>; any other is <code>invalid_client_metadata</code> naming it. A metadata document without <code>client_name</code> is refused the same way.</li>
</ul>
<p>Redirect URIs are matched exactly and must be HTTPS; <code>http://localhost</code> and loopback addresses are allowed for development.</p>
<h2>3. Authorize</h2>
<p>Send the person to ${u(`${urls.appUrl}/oauth/authorize`)} with <code>response_type=code</code>, <code>client_id</code>, <code>redirect_uri</code>, <code>scope</code> (space-separated, see the scopes table of the reference), <code>state</code>, <code>code_challenge</code> and <code>code_challenge_method=S256</code> (PKCE is required for every app; <code>plain</code> is refused), and <code>resource</code> (RFC 8707): ${u(`${urls.baseUrl}/v1`)} (the default) or ${u(`${urls.baseUrl}/mcp`)}. A token works only at the resource it was issued for. Without a <code>scope</code> your app is offered <code>organisation:read sites:read people:read visits:read</code>. They sign in with their console account, see your app and, in plain words, the scopes their role allows (never more), may untick some, and choose live or test data; scopes that erase or change records for good (erasing visitors, the watchlist, roll calls, webhooks, people, attendance rules) are not ticked unless they tick them. The first connection of an app to an organisation needs an Owner or Admin: a member's request waits until one approves it in the console. You receive <code>code</code> and <code>state</code>, or <code>error=access_denied</code>.</p>
<h2>4. Get tokens</h2>
<p><code>POST</code> ${u(`${urls.authUrl}/oauth/token`)} (form): <code>grant_type=authorization_code</code>, <code>code</code>, <code>redirect_uri</code>, <code>code_verifier</code>. Confidential apps authenticate with HTTP Basic; public apps send <code>client_id</code> in the form. The answer has <code>access_token</code> (Bearer, <code>expires_in</code> 3600), <code>refresh_token</code> and the granted <code>scope</code>, which may be narrower than asked. Codes work once and for 60 seconds.</p>
<h2>5. Call the API, refresh, revoke</h2>
<p>Send <code>Authorization: Bearer &lt;access_token&gt;</code>. Missing scope: <code>scope_missing</code> (403 with <code>WWW-Authenticate: Bearer error="insufficient_scope", scope="…"</code> naming every scope the call needs, to ask the person again); a call the person's role forbids: <code>forbidden</code>. Refresh with <code>grant_type=refresh_token</code>: every refresh returns a new refresh token (valid 30 days) and invalidates the old one; presenting an old one again revokes the whole connection. So does sending a code or refresh token from two requests at once: one gets tokens, the others <code>invalid_grant</code>, and the connection is revoked, so send each from one place, once. Revoke tokens at ${u(`${urls.authUrl}/oauth/revoke`)} (RFC 7009). Admins can revoke your app at any time; its tokens then answer <code>unauthorized</code>.</p>`,
  );
}

/** A code block a reader copies (and test/docs/guides.e2e-spec.ts runs): `language` is `sh` or `js`. */
const code = (language: string, text: string) =>
  `<pre><code class="language-${language}">${esc(text.trim())}</code></pre>`;

/**
 * The quickstart: a test key from the console, a first visit with curl, a first verified webhook forwarded by
 * `gatehouse-dev listen`. Its shell blocks run as written (after the `export` lines that carry the reader's own
 * values) and its receiver is a whole program.
 */
export function quickstartPage(baseUrl: string): string {
  const auth = '-H "Authorization: Bearer $KEY"';
  const post = `${auth} -H "Content-Type: application/json" -H "Idempotency-Key: $(uuid)"`;
  return page(
    'Quickstart',
    `<h1>Quickstart: a visit and a verified webhook in 10 minutes</h1>
<p>You need <code>curl</code>, <code>jq</code>, Node.js 20 or later and the integrator CLI <code>gatehouse-dev</code>, which comes with the Gatehouse server (the <code>gatehouse-dev</code> bin of its package): in the server's directory, after <code>npm run build</code>, <code>node dist/src/integrator/main.js</code> runs it. Everything here runs in <strong>test mode</strong>: it works on every plan, sends no real passes (they land in the console's test outbox) and never touches live data.</p>
<h2 id="key">1. Get a test key</h2>
<p>Sign in to the console as an Owner or Admin and open <a href="/console/keys">API keys</a>. Create a <strong>secret</strong> key in <strong>test</strong> mode: it starts with <code>svc_sk_test_</code> and is shown once, so copy it now. Then, in a terminal (and again in each terminal step 3 opens):</p>
${code(
  'sh',
  `export GATEHOUSE=${baseUrl}
export KEY=svc_sk_test_…   # the key you just copied
export RECEIVER=http://localhost:4242/webhooks   # where step 3's receiver listens
export GATEHOUSE_BASE_URL=$GATEHOUSE GATEHOUSE_API_KEY=$KEY   # read by gatehouse-dev
uuid() { node -p 'crypto.randomUUID()'; }   # every POST carries a fresh Idempotency-Key`,
)}
<h2 id="visit">2. Invite a visitor and check them in</h2>
<p>Every organisation has a test-mode copy of its sites. Take the first one, add a host (e-mails are unique, so this one carries a fresh UUID and the block can be run again), invite a visitor to meet them, and check the visitor in:</p>
${code(
  'sh',
  `SITE=$(curl -s "$GATEHOUSE/v1/sites" ${auth} | jq -r '.data[0].id')
HOST=$(curl -s "$GATEHOUSE/v1/people" ${post} \\
  -d "{\\"name\\": \\"Ama Mensah\\", \\"email\\": \\"ama+$(uuid)@example.com\\"}" | jq -r .id)
VISIT=$(curl -s "$GATEHOUSE/v1/visits" ${post} \\
  -d "{\\"site_id\\": \\"$SITE\\", \\"host_id\\": \\"$HOST\\", \\"type\\": \\"meeting\\", \\"visitor\\": {\\"name\\": \\"Kofi Boateng\\", \\"phone\\": \\"+233244123456\\"}}" | jq -r .id)
curl -s "$GATEHOUSE/v1/visits/$VISIT/check-in" ${post} -d '{}' | jq '{id, status, checked_in_at}'`,
)}
<p>The last command prints the visit with <code>"status": "checked_in"</code>. A refusal is a problem document whose <code>code</code> says why (see <a href="/docs/errors">Errors</a>); every answer carries <code>Svc-Request-Id</code> to quote to support. Retrying a POST with the same <code>Idempotency-Key</code> replays its first answer instead of inviting twice.</p>
<h2 id="webhook">3. Receive a verified webhook</h2>
<p>Save this receiver as <code>receiver.js</code> and install its one dependency (<code>npm install standardwebhooks</code>). It verifies each delivery's signature on the raw body before trusting it:</p>
${code(
  'js',
  `const http = require('node:http');
const { Webhook } = require('standardwebhooks');

const webhook = new Webhook(process.env.WEBHOOK_SECRET);
http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const event = webhook.verify(body, req.headers);
        console.log('verified', event.type, event.id);
        res.writeHead(204).end();
      } catch (err) {
        console.log('refused', err.message);
        res.writeHead(400).end();
      }
    });
  })
  .listen(Number(process.env.PORT ?? 4242));`,
)}
<p>In a second terminal, in the Gatehouse server's directory, start <code>listen</code>. It follows your organisation's test-mode events and POSTs each one to the receiver, signed exactly as Gatehouse signs webhook deliveries, with a signing secret made for this session, which it prints first:</p>
${code('sh', `node dist/src/integrator/main.js listen --forward-to "$RECEIVER"`)}
<p>In a third terminal start the receiver with that secret, <code>WEBHOOK_SECRET=whsec_… node receiver.js</code>, and make Gatehouse emit a real event: <code>trigger</code> invites a sample visitor and checks them in (from the server's directory, like <code>listen</code>):</p>
${code('sh', `node dist/src/integrator/main.js trigger visit.checked_in`)}
<p><code>listen</code> shows each event it forwards with the receiver's answer (<code>visit.checked_in evt_… → 204</code>) and the receiver prints <code>verified visit.checked_in evt_…</code> (and a line for each other event the visit caused, such as <code>visit.created</code>). Run step 2 again and its check-in arrives the same way. Stop <code>listen</code> with Ctrl-C; the next session prints a new secret.</p>
<p><strong>In production</strong> Gatehouse delivers to a webhook endpoint at a public <code>https://</code> address: create it in the console (<a href="/console/webhooks">Webhooks</a>) or with <code>POST /v1/webhook-endpoints</code>, and give the receiver the endpoint's signing secret (shown once) instead of the session's; <code>POST /v1/webhook-endpoints/{id}/test</code> sends it a signed sample event. Next: the <a href="/docs/webhooks">webhooks guide</a> (retries, ordering, duplicates, every event with an example) and the <a href="/docs/visitor/">API reference</a>.</p>`,
  );
}
