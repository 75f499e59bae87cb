/**
 * A raw tools/call of the 2026-07-28 revision as the v2 client sends it (headers and `_meta` envelope), from a
 * client named `client`, for the status, headers and bytes a client sees.
 */
export function rawToolCall(
  base: string,
  credential: string,
  name: string,
  args: unknown,
  client = 'raw',
  id = 1,
): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${credential}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}
