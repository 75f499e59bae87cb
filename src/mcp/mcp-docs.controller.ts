import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { esc, page } from '../docs/docs.render';
import { TOOLS } from './tools';
import { V1Operations } from './v1-operations';

const HTML = 'text/html; charset=utf-8';

/** `/docs/connect-an-ai-assistant`: the guide to the tool server, its tool table made from the catalogue itself. */
@ApiExcludeController()
@Controller('docs')
export class McpDocsController {
  private html: string | null = null;

  constructor(
    private readonly ops: V1Operations,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Get('connect-an-ai-assistant')
  @Header('Content-Type', HTML)
  guide(): string {
    this.html ??= guidePage(this.config.baseUrl, (operationId) => this.ops.get(operationId).need.scope);
    return this.html;
  }
}

function guidePage(baseUrl: string, scopeOf: (operationId: string) => string): string {
  // The scope a tool needs is that of the operations it runs (one per tool).
  const scopeOfTool = (t: (typeof TOOLS)[number]) => [...new Set(t.operations.map(scopeOf))].join(', ');
  const rows = TOOLS.map(
    (t) =>
      `<tr><td><code>${esc(t.name)}</code></td><td>${esc(t.description)}</td><td><code>${esc(scopeOfTool(t))}</code></td><td>${t.annotations.readOnlyHint ? 'reads' : 'changes data'}</td></tr>`,
  ).join('\n');
  const url = `${baseUrl}/mcp`;
  return page(
    'Connect an AI assistant',
    `<h1>Connect an AI assistant</h1>
<p>Gatehouse is a tool server for AI assistants (the Model Context Protocol). An assistant connected to <code>${esc(url)}</code> can look up visits, invite visitors, book slots and record deliveries for your organisation, with the same rules and answers as the visitor-management API. The endpoint speaks Streamable HTTP, protocol revision 2026-07-28 and the 2025 revisions, and keeps no session: any Gatehouse instance answers any call.</p>
<h2>Credential</h2>
<p>Your own agents send a secret API key: <code>Authorization: Bearer svc_sk_…</code>. Publishable keys are refused (403). The key's scopes decide which tools the assistant sees; its mode decides the data: a test key works on every plan and touches only test data, live data needs the Pro or Enterprise plan (on other plans a tool answers with a tool error naming <code>plan_required</code>; live events from Growth). Every call counts against your organisation's rate allowance, shared with <code>/v1</code>; it is in the audit trail as the key acting (<code>mcp.tool_called</code>, with the tool and a SHA-256 of its arguments) and in the request log under its request id (<code>Svc-Request-Id</code>).</p>
<p>An assistant that acts for a person connects with OAuth 2.1 instead, as MCP clients do by themselves: the first call's 401 names the resource metadata (<code>${esc(baseUrl)}/.well-known/oauth-protected-resource/mcp</code>) and a small default scope; the client registers (dynamic client registration, or a Client ID Metadata Document) and sends the person to the authorization page with <code>resource=${esc(url)}</code>. The person signs in with their console account and sees the scopes asked for in words, only those their role allows, the destructive ones unticked; the token holds what they left ticked, works only at <code>/mcp</code> (a <code>/v1</code> token is refused here, and the other way round) and acts with the person's role. When a tool needs more, the call is answered 403 <code>insufficient_scope</code> naming its scopes, and the client asks the person again for them.</p>
<h2>Tools</h2>
<table><thead><tr><th>Tool</th><th>What it does</th><th>Scope</th><th></th></tr></thead><tbody>
${rows}
</tbody></table>
<p>Each tool answers with the same object or page as the matching <code>/v1</code> operation (lists carry <code>next_cursor</code>: pass it back as <code>cursor</code>) and one line of text. A tool your credential's scopes do not cover is refused before its arguments are read: HTTP 403 with <code>WWW-Authenticate: Bearer error="insufficient_scope", scope="…"</code> naming every scope the tool needs (an OAuth client asks the person for them and calls again; a key needs a new key). Any other refusal (<code>forbidden</code> for the person's role, <code>plan_required</code>) or a bad argument is a tool error naming the error <code>code</code> (see <a href="/docs/errors">Errors</a>) and the request id. A change asked for twice with the same arguments, say after a dropped connection, is made once and the first answer is given again. Erasing a visitor, starting or closing a roll call and watchlist changes are not tools: a person does them in the console.</p>
<h2>Public content</h2>
<p><code>${esc(`${baseUrl}/public/mcp`)}</code> needs no key: <code>list_public_content</code>, <code>get_public_content</code> and <code>get_durbar_transcript</code> search and read published campaigns, petitions, events, jobs, surveys and durbars, each call counted as one keyless read of the public content API.</p>
<h2>Things to ask</h2>
<ul>
<li>"Who is on site at the Accra office right now?"</li>
<li>"Invite Kofi Boateng, +233244123456, to meet Ama tomorrow at 10:00 at the Accra office."</li>
<li>"Check Kofi out." · "Cancel the 3 pm visit, the meeting moved."</li>
<li>"Find a free site-tour slot next week and book it for Abena, +233201234567."</li>
<li>"Record a DHL parcel for Ama." · "How many people were late last week?"</li>
</ul>
<h2>Try it</h2>
<p>Point an MCP client at the endpoint with a test key, for example the official TypeScript client:</p>
<pre>import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const client = new Client({ name: 'my-assistant', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL('${esc(url)}'), {
    requestInit: { headers: { Authorization: \`Bearer \${process.env.GATEHOUSE_KEY}\` } },
  }),
);
const { tools } = await client.listTools();
const onSite = await client.callTool({ name: 'who_is_on_site', arguments: {} });</pre>`,
  );
}
