import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bootContentApp, ContentTestApp } from '../support/content-fixtures';

type Result = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** `{BASE_URL}/public/mcp`: the public content API as keyless, read-only tools. */
describe('the public tool server at /public/mcp', () => {
  let app: ContentTestApp;
  let base: string;
  let client: Client;

  beforeAll(async () => {
    app = await bootContentApp();
    await app.t.app.listen({ port: 0, host: '127.0.0.1' });
    base = (await app.t.app.getUrl()).replace('[::1]', '127.0.0.1');
    client = new Client(
      { name: 'test-assistant', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/public/mcp`)));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  const callTool = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;
  /** The same read straight from /public/v1 without a key, from this machine. */
  const direct = async (path: string) => {
    const res = await fetch(`${base}/public/v1${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, res };
  };

  it('lists its read-only tools without a key', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_durbar_transcript',
      'get_public_content',
      'list_public_content',
    ]);
    for (const tool of tools)
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  // Keyless reads from this machine share one allowance (30 a minute): this file spends 25 of them, this test first.
  it('counts each tool call against the caller’s keyless allowance', async () => {
    const before = Number((await direct('/campaigns?limit=1')).res.headers.get('ratelimit-remaining'));
    await callTool('list_public_content', { kind: 'campaigns', limit: 1 });
    const after = Number((await direct('/campaigns?limit=1')).res.headers.get('ratelimit-remaining'));
    expect(after).toBe(before - 2);
  });
  it('lists and reads each kind, the lists answered exactly as /public/v1 answers them (the same privacy projection)', async () => {
    for (const kind of ['campaigns', 'petitions', 'events', 'jobs', 'surveys', 'durbars']) {
      const listed = await callTool('list_public_content', { kind, limit: 2 });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toEqual((await direct(`/${kind}?limit=2`)).body);
      const slug = String((listed.structuredContent!.data as { slug: string }[])[0].slug);
      const read = await callTool('get_public_content', { kind, slug });
      expect(read.structuredContent).toMatchObject({ slug });
    }
  });

  it('reads a durbar transcript with its machine-transcription disclaimer', async () => {
    const { rows } = await app.pg.query(
      `SELECT d.slug FROM content.durbar d JOIN content.durbar_transcript t ON t.durbar_id = d.id
        WHERE t.status = 'completed' AND d.status <> 'cancelled' LIMIT 1`,
    );
    const transcript = await callTool('get_durbar_transcript', { slug: rows[0].slug });
    expect(transcript.structuredContent).toEqual((await direct(`/durbars/${rows[0].slug}/transcript`)).body);
    expect(transcript.content[0].text).toContain(String(transcript.structuredContent!.disclaimer));
  });

  it('answers an unknown slug or filter as a tool error naming the code', async () => {
    const missing = await callTool('get_public_content', { kind: 'campaigns', slug: 'no-such-campaign' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toMatch(/^NOT_FOUND: .*\[request req_\w+\]$/);
    const bad = await callTool('list_public_content', { kind: 'campaigns', filters: { colour: 'red' } });
    expect(bad.content[0].text).toMatch(/^VALIDATION_FAILED: .*query\.colour/);
  });
});
