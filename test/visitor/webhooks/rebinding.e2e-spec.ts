import { createServer, Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventsService } from '../../../src/visitor/events/events.service';
import { DeliveryService } from '../../../src/visitor/webhooks/delivery/delivery.service';
import type { Resolver } from '../../../src/visitor/webhooks/delivery/destination';
import { WebhookEndpointsService } from '../../../src/visitor/webhooks/webhook-endpoints.service';
import { LOCAL_DELIVERY_ENV } from '../../support/webhook-app';
import { standIn } from '../../support/webhook-fixtures';

/**
 * Destination checks at send time: every claim of deliveries resolves each endpoint's host again (once for the
 * attempts it claimed together), refuses a non-public answer, and connects to exactly the address it checked (the
 * DeliveryService resolver hook plays DNS).
 */
describe('webhook delivery: DNS rebinding', () => {
  let strict: TestApp;
  let local: TestApp;
  let pg: Client;
  let receiver: WebhookReceiver;
  let trap: Server;
  const trapped: string[] = [];

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    // A TCP listener on loopback that records any connection at all (TLS or not).
    trap = createServer((s) => {
      trapped.push(String(s.remoteAddress));
      s.destroy();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    // production rules (https only, public addresses only); no worker: the test drives each attempt
    strict = await bootTestApp({ env: { RUN_WORKER: 'false', WEBHOOK_TIMEOUT_MS: '1000' } });
    // (a receiver timeout generous enough for a loaded machine)
    local = await bootTestApp({
      db: strict.db,
      env: { ...LOCAL_DELIVERY_ENV, RUN_WORKER: 'false', WEBHOOK_TIMEOUT_MS: '10000' },
    });
    pg = new Client({ connectionString: strict.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await local.close();
    await strict.close();
    await receiver.stop();
    await new Promise((r) => trap.close(r));
  });

  /**
   * Saves an endpoint through the service (its URL checked), records `events` events (one by default), returns the
   * first delivery's id.
   */
  async function deliveryTo(
    app: TestApp['app'],
    url: string,
    events = 1,
  ): Promise<{ deliveryId: string; endpointId: string }> {
    const tenant = { organisationId: `org_rebind_${Date.now()}${Math.random()}`, livemode: true };
    const ep = await app.get(WebhookEndpointsService).create(tenant, { url, enabled_events: ['*'] });
    for (let i = 0; i < events; i++)
      await app
        .get(Transactions)
        .run((uow) => app.get(EventsService).record(uow, tenant, 'visit.created', standIn({ id: `v${i}` })));
    const { rows } = await pg.query(
      `SELECT id FROM visitor.webhook_delivery WHERE endpoint_id = $1 ORDER BY created_at, id`,
      [ep.id],
    );
    return { deliveryId: rows[0].id, endpointId: ep.id };
  }
  const deliveryRow = async (id: string) =>
    (await pg.query(`SELECT * FROM visitor.webhook_delivery WHERE id = $1`, [id])).rows[0];

  it('a host public when saved and loopback at delivery time is refused, and nothing connects to loopback', async () => {
    const svc = strict.app.get(DeliveryService);
    const answers: string[] = [];
    let answer = '93.184.216.34';
    svc.resolver = async (host) => {
      answers.push(`${host}=${answer}`);
      return [{ address: answer, family: 4 }];
    };
    const { deliveryId } = await deliveryTo(
      strict.app,
      `https://rebind.example:${(trap.address() as AddressInfo).port}/hook`,
    );
    expect(answers).toEqual(['rebind.example=93.184.216.34']); // checked when saved

    answer = '127.0.0.1'; // the DNS answer changes after the check
    expect(await svc.attempt(deliveryId)).toBe('retrying');
    const d = await deliveryRow(deliveryId);
    expect(d).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      last_status_code: null,
      last_error: 'destination refused: host rebind.example resolves to a non-public address (127.0.0.1)',
    });
    const attempts = (
      await pg.query(`SELECT * FROM visitor.webhook_attempt WHERE delivery_id = $1`, [deliveryId])
    ).rows;
    expect(attempts).toMatchObject([{ attempt_number: 1, status_code: null, error: d.last_error }]);
    expect(answers).toEqual(['rebind.example=93.184.216.34', 'rebind.example=127.0.0.1']);
    await new Promise((r) => setTimeout(r, 200));
    expect(trapped).toEqual([]);
  });

  it('one answer mixing a public and a private address is refused at delivery time', async () => {
    const svc = strict.app.get(DeliveryService);
    let answers = [{ address: '93.184.216.34', family: 4 as const }];
    svc.resolver = async () => answers;
    const { deliveryId } = await deliveryTo(
      strict.app,
      `https://mixed.example:${(trap.address() as AddressInfo).port}/h`,
    );
    answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await svc.attempt(deliveryId);
    expect((await deliveryRow(deliveryId)).last_error).toBe(
      'destination refused: host mixed.example resolves to a non-public address (10.0.0.7)',
    );
    expect(trapped).toEqual([]);
  });

  it('an attempt whose DNS answer never comes ends at its timeout, so it cannot outlive its claim', async () => {
    const svc = strict.app.get(DeliveryService);
    let hang = false;
    const pending: (() => void)[] = [];
    svc.resolver = async () => {
      if (!hang) return [{ address: '93.184.216.34', family: 4 }];
      await new Promise<void>((r) => pending.push(r)); // released at the end, with an answer refused here
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const { deliveryId } = await deliveryTo(
      strict.app,
      `https://silent-dns.example:${(trap.address() as AddressInfo).port}/h`,
    );
    hang = true;
    expect(await svc.attempt(deliveryId)).toBe('retrying'); // WEBHOOK_TIMEOUT_MS is 1000 in this app
    expect(pending).toHaveLength(1); // the lookup was still unanswered
    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: 'pending',
      attempt_count: 1,
      locked_until: null,
      last_error: 'timeout: no answer within 1000 ms',
    });
    pending.forEach((r) => r());
  });

  it('connects to the address it checked: a host no DNS knows reaches the receiver it was resolved to', async () => {
    const svc = local.app.get(DeliveryService);
    let calls = 0;
    const resolver: Resolver = async (host) => {
      calls++;
      if (host !== 'nowhere.invalid') throw new Error(`unexpected lookup of ${host}`);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    svc.resolver = resolver;
    const url = `http://nowhere.invalid:${receiver.port}/ok/pinned`;
    const { deliveryId } = await deliveryTo(local.app, url);
    expect(calls).toBe(1);
    const result = await svc.attempt(deliveryId);
    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: 'succeeded',
      last_status_code: 204,
      last_error: null,
    });
    expect(result).toBe('succeeded');
    expect(calls).toBe(2); // resolved once per attempt, by our check; the socket did not look it up again
    const [got] = receiver.on('/ok/pinned');
    expect(got.headers.host).toBe(`nowhere.invalid:${receiver.port}`);
  });

  it('every attempt checks its URL again, at once after the last; a changed URL is the one checked', async () => {
    const svc = local.app.get(DeliveryService);
    const lookups: string[] = [];
    svc.resolver = async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const { deliveryId, endpointId } = await deliveryTo(
      local.app,
      `http://first.invalid:${receiver.port}/ok/a`,
    );
    expect(await svc.attempt(deliveryId)).toBe('succeeded');
    expect(lookups).toEqual(['first.invalid', 'first.invalid']); // saved, then the attempt's check
    // The same delivery again at once: its URL is checked again.
    await pg.query(
      `UPDATE visitor.webhook_delivery SET status = 'pending', next_attempt_at = now() - interval '1 second' WHERE id = $1`,
      [deliveryId],
    );
    expect(await svc.attempt(deliveryId)).toBe('succeeded');
    expect(lookups).toEqual(['first.invalid', 'first.invalid', 'first.invalid']);

    const ep = await pg.query(
      `SELECT organisation_id, livemode FROM visitor.webhook_endpoint WHERE id = $1`,
      [endpointId],
    );
    const tenant = { organisationId: ep.rows[0].organisation_id, livemode: ep.rows[0].livemode };
    await local.app
      .get(WebhookEndpointsService)
      .update(tenant, endpointId, { url: `http://second.invalid:${receiver.port}/ok/b` });
    await pg.query(
      `UPDATE visitor.webhook_delivery SET status = 'pending', next_attempt_at = now() - interval '1 second' WHERE id = $1`,
      [deliveryId],
    );
    expect(await svc.attempt(deliveryId)).toBe('succeeded');
    expect(lookups).toEqual([
      'first.invalid',
      'first.invalid',
      'first.invalid',
      'second.invalid',
      'second.invalid',
    ]);
    expect(receiver.on('/ok/b')).toHaveLength(1);
  });

  it('attempts claimed together resolve their host once; the next claim resolves it again and obeys the new answer', async () => {
    const svc = local.app.get(DeliveryService);
    const lookups: string[] = [];
    let answer = '127.0.0.1';
    svc.resolver = async (host) => {
      lookups.push(`${host}=${answer}`);
      return [{ address: answer, family: 4 }];
    };
    const { endpointId } = await deliveryTo(local.app, `http://batch.invalid:${receiver.port}/ok/batch`, 3);
    // Only this endpoint's deliveries: those of the tests above fall due again meanwhile, under other names.
    const claimOfEndpoint = async () => {
      const { rows } = await pg.query(`SELECT id FROM visitor.webhook_delivery WHERE endpoint_id = $1`, [
        endpointId,
      ]);
      return (await svc.claim({ ids: rows.map((r) => r.id as string) })).ready;
    };
    const first = await claimOfEndpoint();
    expect(first).toHaveLength(3);
    expect(await Promise.all(first.map((d) => svc.send(d)))).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(lookups).toEqual(['batch.invalid=127.0.0.1', 'batch.invalid=127.0.0.1']); // saved, then the claim's
    expect(receiver.on('/ok/batch')).toHaveLength(3);

    // The answer changes: the next claim checks again, and its attempts are refused without connecting.
    answer = '10.0.0.7';
    await pg.query(
      `UPDATE visitor.webhook_delivery SET status = 'pending', next_attempt_at = now() - interval '1 second'
        WHERE endpoint_id = $1`,
      [endpointId],
    );
    const second = await claimOfEndpoint();
    expect(second).toHaveLength(3);
    expect(await Promise.all(second.map((d) => svc.send(d)))).toEqual(['retrying', 'retrying', 'retrying']);
    expect(lookups).toEqual(['batch.invalid=127.0.0.1', 'batch.invalid=127.0.0.1', 'batch.invalid=10.0.0.7']);
    const { rows } = await pg.query(
      `SELECT DISTINCT last_error FROM visitor.webhook_delivery WHERE endpoint_id = $1`,
      [endpointId],
    );
    expect(rows).toEqual([
      { last_error: 'destination refused: host batch.invalid resolves to a non-public address (10.0.0.7)' },
    ]);
    expect(receiver.on('/ok/batch')).toHaveLength(3);
  });
});
