import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bootTestApp, TestApp } from '../harness';
import { freePort } from '../support/app-process';
import { call, createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';
import { EVENT_TYPES, EXPLICIT_ONLY_EVENT_TYPES } from '../../src/visitor/events/event-types';
import { DISABLE_AFTER_MS, RETRY_WAITS_MS } from '../../src/visitor/webhooks/delivery/retry-schedule';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');

/** The code blocks of a served guide, as a reader copies them (HTML entities decoded). */
const blocks = (html: string, language: string) =>
  [
    ...html.matchAll(new RegExp(`<pre><code class="language-${language}">([\\s\\S]*?)</code></pre>`, 'g')),
  ].map((m) =>
    m[1]
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
  );

/** /docs/quickstart and /docs/webhooks: the quickstart's commands run as written, the webhooks guide tells the truth. */
describe('/docs guides', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await bootTestApp({ env: { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t?.close());
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('the quickstart runs as written: a visit checked in, then `listen` forwards real events its receiver verifies', async () => {
    const html = (await get('/docs/quickstart')).body;
    expect(html).toContain('href="/console/keys"');
    const sh = blocks(html, 'sh');
    const [receiverJs] = blocks(html, 'js');
    expect(sh).toHaveLength(4);
    expect(sh[2]).toMatch(/^node dist\/src\/integrator\/main\.js listen /);
    const org = await createOrg(t.app);
    const key = await org.key(); // a secret test-mode key, as the console's API keys page creates
    expect(key).toMatch(/^svc_sk_test_/);
    const dir = mkdtempSync(join(tmpdir(), 'gh-quickstart-'));
    let receiver: ChildProcess | null = null;
    let listener: ChildProcess | null = null;
    let forwardedSeen: string[] = [];
    let linesSeen: string[] = [];
    let listenErr = '';
    let receiverErr = '';
    try {
      // The reader's own values replace their `export` lines; the rest of the first block runs as written.
      // A port the OS says is free (with a random one, the receiver once never answered in CI).
      const receiverPort = await freePort();
      const env = {
        ...process.env,
        GATEHOUSE: base,
        KEY: key,
        RECEIVER: `http://127.0.0.1:${receiverPort}/webhooks`,
      };
      const setup = sh[0]
        .split('\n')
        .filter((l) => !/^export (GATEHOUSE|KEY|RECEIVER)=/.test(l))
        .join('\n');
      const bash = (...parts: string[]) => ['-euo', 'pipefail', '-c', [setup, ...parts].join('\n')];
      // the curl blocks run anywhere; gatehouse-dev runs in the server's directory, as the guide says
      const script = (...parts: string[]) => run('bash', bash(...parts), { cwd: dir, env });
      const inServer = (...parts: string[]) => run('bash', bash(...parts), { cwd: ROOT, env });
      const visit = async () => {
        const out = (await script(sh[1])).stdout;
        expect(JSON.parse(out).status).toBe('checked_in');
      };
      await visit();
      // listen, in its own terminal: it prints the session's signing secret, then one line per forwarded event.
      const forwarded: string[] = [];
      forwardedSeen = forwarded;
      listener = spawn('bash', bash(sh[2]), { cwd: ROOT, env, detached: true });
      listener.stdout!.on('data', (b: Buffer) => forwarded.push(...b.toString().trim().split('\n')));
      listener.stderr!.on('data', (b: Buffer) => (listenErr += b.toString()));
      await until(async () => forwarded.some((l) => /whsec_\S+/.test(l)), 30_000);
      const secret = /whsec_\S+/.exec(forwarded.join('\n'))![0];
      // The receiver, as a reader saves it, started with the secret listen printed.
      const file = join(dir, 'receiver.js');
      writeFileSync(file, receiverJs);
      const lines: string[] = [];
      linesSeen = lines;
      receiver = spawn(process.execPath, [file], {
        env: {
          ...process.env,
          WEBHOOK_SECRET: secret,
          PORT: String(receiverPort),
          NODE_PATH: join(ROOT, 'node_modules'),
        },
      });
      receiver.stdout!.on('data', (b: Buffer) => lines.push(...b.toString().trim().split('\n')));
      receiver.stderr!.on('data', (b: Buffer) => (receiverErr += b.toString()));
      let receiverExit: number | null = null;
      receiver.once('exit', (code) => (receiverExit = code ?? -1));
      // a node process may take seconds to start on a busy machine; one that ended will not answer
      await until(async () => {
        if (receiverExit !== null) throw new Error(`the receiver exited (${receiverExit})`);
        return fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', body: '{}' }).then(
          () => true,
          () => false,
        );
      }, 30_000);
      // the receiver prints its line after answering: wait for it (an unsigned POST is refused)
      await until(async () => lines.length > 0);
      expect(lines.shift()).toMatch(/^refused /);
      const checkedIn = () => lines.filter((l) => /^verified visit\.checked_in evt_/.test(l)).length;
      // trigger, twice (each run makes its own visit); then step 2 again, a check-in of the reader's own
      await inServer(sh[3]);
      await until(async () => checkedIn() === 1, 20_000);
      await inServer(sh[3]);
      await until(async () => checkedIn() === 2, 20_000);
      await visit();
      await until(async () => checkedIn() === 3, 20_000);
      expect(lines.filter((l) => !l.startsWith('verified '))).toEqual([]);
      // every forward was answered 204, and only events after listen started went (not the first check-in)
      // listen prints a forward's line after the receiver has answered it: wait for the third
      const checkedInForwards = () => forwarded.filter((l) => /visit\.checked_in\s+evt_\S+\s+→ 204 /.test(l));
      await until(async () => checkedInForwards().length >= 3, 20_000);
      expect(checkedInForwards()).toHaveLength(3);
      expect(forwarded.filter((l) => l.includes('→') && !/→ 204 /.test(l))).toEqual([]);
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\nlisten printed: ${JSON.stringify(forwardedSeen)}\nreceiver printed: ${JSON.stringify(linesSeen)}\nlisten stderr: ${listenErr}\nreceiver stderr: ${receiverErr}`,
        { cause: e },
      );
    } finally {
      // the listen process group, if it is still there (it may have ended already)
      if (listener?.pid)
        try {
          process.kill(-listener.pid, 'SIGTERM');
        } catch {
          // ESRCH: it has ended already
        }
      receiver?.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the webhooks guide states the retry schedule and disable rule of the delivery code', async () => {
    const res = await get('/docs/webhooks');
    expect(res.statusCode).toBe(200);
    const html = res.body;
    const rows = [...html.matchAll(/<tr><td>(\d+)<\/td><td>([^<]+)<\/td>/g)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual([
      [1, 'at once'],
      [2, '5 seconds after attempt 1'],
      [3, '5 minutes after attempt 2'],
      [4, '30 minutes after attempt 3'],
      [5, '2 hours after attempt 4'],
      [6, '5 hours after attempt 5'],
      [7, '10 hours after attempt 6'],
      [8, '10 hours after attempt 7'],
    ]);
    expect(rows).toHaveLength(RETRY_WAITS_MS.length);
    expect(DISABLE_AFTER_MS).toBe(5 * 86_400_000);
    expect(html).toContain('has failed for 5 days is disabled');
    expect(html).toContain('within 15 seconds'); // WEBHOOK_TIMEOUT_MS's default
    expect(html).toMatch(/Ordering is not guaranteed/);
    expect(html).toMatch(/keep the ids you handled for at least 30 days/);
    expect(EXPLICIT_ONLY_EVENT_TYPES).toEqual(['watchlist.matched']);
    expect(html).toContain('go only to endpoints that list <code>watchlist.matched</code> by name');
  });

  it('the event catalogue shows every type with the payload a test send delivers', async () => {
    const html = (await get('/docs/webhooks')).body;
    const examples = new Map(
      blocks(html, 'json').map((b) => {
        const event = JSON.parse(b) as { type: string };
        return [event.type, event];
      }),
    );
    expect([...examples.keys()]).toEqual([...EVENT_TYPES]);
    // Compare with what POST /v1/webhook-endpoints/{id}/test really sends, received by a local endpoint.
    const received: Record<string, unknown>[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const org = await createOrg(t.app);
      const key = await org.key();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const endpoint = (
        await call(t.app, 'POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events: ['*'] } })
      ).json();
      const shape = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.slice(0, 1).map(shape)
          : v !== null && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]))
            : typeof v;
      for (const type of ['visit.checked_in', 'booking.confirmed', 'watchlist.matched', 'rollcall.closed']) {
        const res = await call(t.app, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`, {
          key,
          body: { type },
        });
        expect(res.json().outcome).toBe('succeeded');
        const sent = received.at(-1)!;
        expect({ type, shape: shape(sent) }).toEqual({ type, shape: shape(examples.get(type)) });
        expect(
          (examples.get(type) as unknown as { data: { object: { status?: string } } }).data.object.status,
        ).toBe((sent as { data: { object: { status?: string } } }).data.object.status);
      }
    } finally {
      server.close();
    }
  });

  it('the docs home and every docs page link the guides and declare their language', async () => {
    const home = (await get('/docs')).body;
    expect(home).toContain('href="/docs/quickstart"');
    expect(home).toContain('href="/docs/webhooks"');
    // the client library is named where an integrator starts, with where it lives
    expect(home).toMatch(
      /@gatehouse\/client<\/code>, in this service's repository under <code>clients\/typescript/,
    );
    for (const url of [
      '/docs',
      '/docs/quickstart',
      '/docs/webhooks',
      '/docs/errors',
      '/docs/connect-an-app',
      '/docs/connect-an-ai-assistant',
      '/docs/visitor/',
      '/docs/public/',
    ]) {
      const res = await get(url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expect({ url, lang: /<html[^>]*\slang="en"/.test(res.body) }).toEqual({ url, lang: true });
    }
  });
});
