import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootTestApp, TestApp } from '../harness';
import { createOrg } from '../support/platform-fixtures';

const CLI = join(__dirname, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(__dirname, 'conformance-baseline.yml');
/** The scenarios that test what a tools-only, stateless server must do (the rest are in the baseline, with why). */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, server mode, offline: it only talks to the URL it
 * is given) against `/mcp` and `/public/mcp`. The suite's client sends no credential, so `/mcp` is reached through a
 * local forwarder that adds a test-mode secret key, as an assistant configured with one would.
 */
describe('MCP conformance suite', () => {
  let t: TestApp;
  let base: string;
  let forwarder: Server;
  let forwarded: string;
  const out = mkdtempSync(join(tmpdir(), 'gh-conformance-'));

  beforeAll(async () => {
    t = await bootTestApp({
      env: {
        RUN_WORKER: 'false',
        TEST_MODE_RATE_PER_MINUTE: '100000',
        PUBLIC_KEYLESS_RATE_PER_MINUTE: '100000',
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    const key = await (await createOrg(t.app, 'pro')).key();
    const target = new URL(base);
    forwarder = createServer((req, res) => {
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host, authorization: `Bearer ${key}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((r) => forwarder.listen(0, '127.0.0.1', r));
    forwarded = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((r) => forwarder?.close(r));
    await t?.close();
    rmSync(out, { recursive: true, force: true });
  });

  /** Runs the suite against `url` with the baseline; its exit code and every check of every scenario it ran. */
  async function run(
    url: string,
    name: string,
  ): Promise<{ code: number; output: string; checks: Map<string, Check[]> }> {
    const dir = join(out, name);
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          '--import',
          join(__dirname, '../support/conformance-node20.mjs'),
          CLI,
          'server',
          '--url',
          url,
          '--expected-failures',
          BASELINE,
          '-o',
          dir,
        ],
        { timeout: 120_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      ),
    );
    const checks = new Map<string, Check[]>();
    for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
      if (!entry.endsWith('checks.json')) continue;
      const scenario = entry
        .split('/')[0]
        .replace(/^server-(?!initialize|sse)/, '')
        .replace(/-\d{4}-\d\d-\d\dT.*$/, '');
      checks.set(scenario, JSON.parse(readFileSync(join(dir, entry), 'utf8')) as Check[]);
    }
    return { code, output, checks };
  }

  for (const [name, path, viaKey] of [
    ['/mcp', '/mcp', true],
    ['/public/mcp', '/public/mcp', false],
  ] as const)
    it(`${name}: every scenario that applies passes, and only the baseline's fail`, async () => {
      const r = await run(`${viaKey ? forwarded : base}${path}`, path.replace(/\//g, '_'));
      // exit 0: nothing failed outside the baseline, and every baseline entry still fails (none is stale)
      expect({ code: r.code, output: r.code === 0 ? '' : r.output }).toEqual({ code: 0, output: '' });
      for (const scenario of APPLICABLE) {
        const statuses = (r.checks.get(scenario) ?? []).map((c) => c.status);
        expect({ scenario, statuses }).toEqual({ scenario, statuses: expect.arrayContaining(['SUCCESS']) });
        expect(statuses).not.toContain('FAILURE');
      }
    }, 180_000);
});
