import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { bootServiceContext, createTestDatabase, ServiceContext, TestDatabase } from '../harness';
import { saveBookingType } from '../support/booking-fixtures';
import { AppProcess, startAppProcess } from '../support/app-process';
import { createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';
import { LOCAL_DELIVERY_ENV } from '../support/webhook-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const BIN = join(__dirname, '../../dist/src/integrator/main.js');

/** `gatehouse-dev …` from dist as a child process; its stdout lines parsed as JSON (it runs with --json). */
class Cli {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d) => (this.stdout += d));
    this.child.stderr!.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  lines(): Record<string, unknown>[] {
    return this.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The first line satisfying `test`, once printed. */
  line(test: (l: Record<string, unknown>) => boolean, ms = 15_000): Promise<Record<string, unknown>> {
    return until(async () => this.lines().find(test), ms).catch(() => {
      throw new Error(`no such line; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
    });
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGINT');
    return this.exited;
  }
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver: keeps what it is sent, answers 204. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

/**
 * The integrator CLI (`gatehouse-dev`, dist/src/integrator) against the compiled service as a real HTTP server:
 * `listen` forwards `trigger`ed events signed with the secret it printed, `logs tail` shows requests made after
 * it started, and the streams refuse live keys.
 */
describe('integrator CLI (gatehouse-dev)', () => {
  let db: TestDatabase;
  let app: AppProcess;
  let ctx: ServiceContext;
  let orgId: string;
  let site: string;
  let testKey: string;
  let liveKey: string;
  const env = () => ({ GATEHOUSE_API_KEY: testKey, GATEHOUSE_BASE_URL: app.url, NO_COLOR: '1' });
  const running: Cli[] = [];
  const cli = (args: string[], extra: Record<string, string> = {}) => {
    const c = new Cli(['--json', ...args], { ...env(), ...extra });
    running.push(c);
    return c;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    // A second instance on the same database (no HTTP): it makes the organisation and, later, a booking type.
    ctx = await bootServiceContext({ db, env: { RUN_WORKER: 'false' } });
    const org = await createOrg(ctx.app as NestFastifyApplication, 'pro');
    orgId = org.id;
    site = org.sites.find((s) => !s.livemode)!.id;
    testKey = await org.key();
    liveKey = await org.key({ mode: 'live' });
    // With its worker, delivering webhooks to a receiver on 127.0.0.1 (events resend).
    app = await startAppProcess(db.url, {
      ...LOCAL_DELIVERY_ENV,
      RUN_WORKER: 'true',
      TEST_MODE_RATE_PER_MINUTE: '100000',
    });
  }, 120_000);

  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });

  afterAll(async () => {
    if (app && app.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await ctx?.app.close();
    await db?.drop();
  });

  it('listen forwards triggered events, each signed with the secret it printed, and shows status and duration', async () => {
    const hooks = await receiver();
    try {
      // Only these types (the worker also records pass.sent for the checked-in visit).
      const listen = cli([
        'listen',
        '--forward-to',
        hooks.url,
        '--events',
        'person.created,visit.created,visit.checked_in',
      ]);
      const ready = await listen.line((l) => l.type === 'ready');
      const secret = ready.secret as string;
      expect(secret).toMatch(/^whsec_/);

      const trig = cli(['trigger', 'visit.checked_in']);
      expect(await trig.exited).toBe(0);
      const triggered = trig.lines().find((l) => l.type === 'triggered')!;
      expect(triggered).toMatchObject({ event_type: 'visit.checked_in', status: 'checked_in' });
      const visitId = triggered.object_id as string;

      // The organisation has no person yet: trigger made a sample host first (person.created).
      await until(async () => hooks.received.length >= 3, 15_000);
      const wh = new Webhook(secret);
      const events = hooks.received.map((r) => {
        const verified = wh.verify(r.body, {
          'webhook-id': r.headers['webhook-id'] as string,
          'webhook-timestamp': r.headers['webhook-timestamp'] as string,
          'webhook-signature': r.headers['webhook-signature'] as string,
        }) as { id: string; type: string; livemode: boolean; data: { object: { id: string } } };
        expect(verified.id).toBe(r.headers['webhook-id']);
        return verified;
      });
      expect(events.map((e) => e.type)).toEqual(['person.created', 'visit.created', 'visit.checked_in']);
      expect(events.slice(1).every((e) => e.data.object.id === visitId)).toBe(true);
      expect(events.every((e) => e.livemode === false)).toBe(true);
      // A body signed with another secret does not verify.
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(
          hooks.received[0].body,
          hooks.received[0].headers as Record<string, string>,
        ),
      ).toThrow();

      const forwarded = await listen.line(
        (l) => l.type === 'forwarded' && l.event_type === 'visit.checked_in',
      );
      expect(forwarded).toMatchObject({ status: 204, event_id: events[2].id });
      expect(typeof forwarded.duration_ms).toBe('number');

      // events list shows what listen forwarded.
      const list = cli(['events', 'list', '--type', 'visit.checked_in']);
      expect(await list.exited).toBe(0);
      expect(list.lines().map((l) => l.id)).toEqual([events[2].id]);
    } finally {
      hooks.server.close();
    }
  }, 60_000);

  it('a stream resumed with Last-Event-ID first replays the events recorded after that one', async () => {
    const first = cli(['trigger', 'delivery.received']);
    expect(await first.exited).toBe(0);
    const list = cli(['events', 'list', '--type', 'delivery.received']);
    expect(await list.exited).toBe(0);
    const after = list.lines()[0].id as string;
    const second = cli(['trigger', 'visit.created']);
    expect(await second.exited).toBe(0);

    const abort = new AbortController();
    const res = await fetch(`${app.url}/v1/events/stream`, {
      headers: { authorization: `Bearer ${testKey}`, 'last-event-id': after },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let text = '';
    const reader = res.body!.getReader();
    while (!/event: visit\.created/.test(text)) {
      const { value } = await reader.read();
      text += Buffer.from(value!).toString();
    }
    abort.abort();
    expect(text).not.toContain(`id: ${after}\n`);
    expect(text).toMatch(/id: evt_\S+\nevent: visit\.created\ndata: \{/);
  }, 60_000);

  it('refuses a live key: the streams answer forbidden; listen, trigger and logs tail exit 2 with one line and create nothing', async () => {
    const res = await fetch(`${app.url}/v1/events/stream`, {
      headers: { authorization: `Bearer ${liveKey}` },
    });
    expect(res.status).toBe(403);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe('forbidden');
    expect(problem.detail).toMatch(/test-mode data only; this credential is live/);
    const requests = await fetch(`${app.url}/v1/requests/stream`, {
      headers: { authorization: `Bearer ${liveKey}` },
    });
    expect(requests.status).toBe(403);

    const live = { GATEHOUSE_API_KEY: liveKey };
    for (const [name, args] of [
      ['listen', ['listen', '--forward-to', 'http://127.0.0.1:9/hooks']],
      ['trigger', ['trigger', 'visit.created']],
      ['logs tail', ['logs', 'tail']],
    ] as const) {
      const json = cli([...args], live);
      expect({ name, code: await json.exited }).toEqual({ name, code: 2 });
      expect(json.lines()).toEqual([
        {
          error: {
            code: 'usage',
            message: `${name} works in test mode only and this API key is live; use a test-mode key (svc_sk_test_…)`,
          },
        },
      ]);
    }
    // What a person sees: one line on stderr, nothing on stdout.
    const human = new Cli(['trigger', 'booking.created'], { ...env(), ...live });
    running.push(human);
    expect(await human.exited).toBe(2);
    expect({ stdout: human.stdout, stderr: human.stderr }).toEqual({
      stdout: '',
      stderr:
        'error: trigger works in test mode only and this API key is live; use a test-mode key (svc_sk_test_…)\n',
    });
    // Nothing was made in live mode: the live key sees no event and no visit.
    const listed = cli(['events', 'list'], live);
    expect(await listed.exited).toBe(0);
    expect(listed.lines()).toEqual([]);
    const visits = (await (
      await fetch(`${app.url}/v1/visits`, { headers: { authorization: `Bearer ${liveKey}` } })
    ).json()) as { data: unknown[] };
    expect(visits.data).toEqual([]);
  }, 60_000);

  it('logs tail shows a request made after it started, with its status', async () => {
    const logs = cli(['logs', 'tail']);
    await logs.line((l) => l.type === 'ready');
    const res = await fetch(`${app.url}/v1/visits?limit=3`, {
      headers: { authorization: `Bearer ${testKey}` },
    });
    expect(res.status).toBe(200);
    const missing = await fetch(`${app.url}/v1/visits/visit_doesnotexist`, {
      headers: { authorization: `Bearer ${testKey}` },
    });
    expect(missing.status).toBe(404);
    const seen = await logs.line((l) => l.type === 'request' && l.path === '/v1/visits?limit=3');
    expect(seen).toMatchObject({ method: 'GET', status: 200, livemode: false });
    const failed = await logs.line((l) => l.type === 'request' && l.path === '/v1/visits/visit_doesnotexist');
    expect(failed).toMatchObject({ status: 404, error_code: 'not_found' });
  }, 30_000);

  it('trigger makes each event type it names happen, as events list shows', async () => {
    const people = (await (
      await fetch(`${app.url}/v1/people?limit=1`, { headers: { authorization: `Bearer ${testKey}` } })
    ).json()) as { data: { id: string }[] };
    await saveBookingType(
      ctx.app as NestFastifyApplication,
      { organisationId: orgId, livemode: false },
      { site, host: people.data[0].id },
      { requires_confirmation: true },
    );
    const types = [
      'visit.updated',
      'visit.checked_out',
      'visit.cancelled',
      'visit.no_show',
      'person.created',
      'delivery.collected',
      'delivery.returned',
      'booking.created',
      'booking.confirmed',
      'booking.declined',
      'booking.cancelled',
      'booking.expired',
    ];
    for (const type of types) {
      const trig = cli(['trigger', type]);
      const code = await trig.exited;
      expect({ type, code, stderr: trig.stderr }).toEqual({ type, code: 0, stderr: '' });
      const list = cli(['events', 'list', '--type', type, '--limit', '1']);
      expect(await list.exited).toBe(0);
      const [event] = list.lines();
      expect(event).toMatchObject({ event_type: type, object_id: trig.lines()[0].object_id });
    }

    const unknown = cli(['trigger', 'watchlist.matched']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.lines()[0]).toMatchObject({ error: { code: 'usage' } });
  }, 120_000);

  it('events resend delivers a stored event to the endpoint again and says so; a bad id is one line and exit 1', async () => {
    const endpoints = await new WebhookReceiver().start();
    try {
      const created = await fetch(`${app.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${testKey}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ url: endpoints.url('/ok/resend'), enabled_events: ['delivery.collected'] }),
      });
      expect(created.status).toBe(201);
      const endpoint = (await created.json()) as { id: string; secret: string };

      const trig = cli(['trigger', 'delivery.collected']);
      expect(await trig.exited).toBe(0);
      const [first] = await endpoints.waitFor('/ok/resend', 1);
      const wh = new Webhook(endpoint.secret);
      const event = wh.verify(first.body, first.headers as Record<string, string>) as {
        id: string;
        type: string;
        data: { object: { id: string } };
      };
      expect(event).toMatchObject({
        type: 'delivery.collected',
        data: { object: { id: trig.lines()[0].object_id } },
      });

      const resend = cli(['events', 'resend', event.id]);
      expect(await resend.exited).toBe(0);
      expect(resend.lines()).toEqual([
        {
          type: 'resent',
          event_id: event.id,
          deliveries: [{ id: expect.any(String), endpoint_id: endpoint.id, status: 'pending' }],
        },
      ]);
      // The endpoint receives the same event again (same webhook-id and body), signed with its secret.
      const [, again] = await endpoints.waitFor('/ok/resend', 2);
      expect(again.headers['webhook-id']).toBe(event.id);
      expect(again.body).toBe(first.body);
      expect(wh.verify(again.body, again.headers as Record<string, string>)).toMatchObject({ id: event.id });

      // What a person sees: one line naming the event and the endpoint.
      const human = new Cli(['events', 'resend', event.id, '--endpoint', endpoint.id], env());
      running.push(human);
      expect(await human.exited).toBe(0);
      expect({ stdout: human.stdout, stderr: human.stderr }).toEqual({
        stdout: `Resent ${event.id} to ${endpoint.id}\n`,
        stderr: '',
      });
      await endpoints.waitFor('/ok/resend', 3);

      // An id that names no event: one line on stderr, exit 1, nothing sent.
      const bad = new Cli(['events', 'resend', 'evt_doesnotexist'], env());
      running.push(bad);
      expect(await bad.exited).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr.split('\n')).toEqual([expect.stringMatching(/^error: 404 not_found: /), '']);
      const badJson = cli(['events', 'resend', 'evt_doesnotexist']);
      expect(await badJson.exited).toBe(1);
      expect(badJson.lines()).toEqual([{ error: expect.objectContaining({ code: 'not_found' }) }]);
      expect(endpoints.on('/ok/resend')).toHaveLength(3);
    } finally {
      await endpoints.stop();
    }
  }, 60_000);

  it('shutdown ends open streams: the server exits promptly with listen connected', async () => {
    const listen = cli(['listen', '--forward-to', 'http://127.0.0.1:9/hooks']);
    await listen.line((l) => l.type === 'ready');
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
  }, 30_000);
});
