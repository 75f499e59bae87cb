import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { flushRedisPrefix } from '../../../src/redis/redis-prefix';
import { Client } from 'pg';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../../harness';
import { startWorkerProcess } from '../../support/app-process';
import { until } from '../../support/until';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { createEndpoint, standIn } from '../../support/webhook-fixtures';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventsService } from '../../../src/visitor/events/events.service';

/** At-least-once delivery when Redis loses its jobs or a worker dies mid-delivery. */
describe('webhook delivery faults', () => {
  let receiver: WebhookReceiver;
  let db: TestDatabase;
  let pg: Client;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const tenant = { organisationId: 'org_faults', livemode: false };

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await db.drop();
    await receiver.stop();
    redis.disconnect();
  });

  it('delivers every event after the queued jobs were wiped from Redis', async () => {
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const env = {
      WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_SWEEP_MS: '200',
      REDIS_KEY_PREFIX: prefix,
    };
    // An API process with no worker records events and enqueues them…
    const api = await bootTestApp({ db, env: { ...env, RUN_WORKER: 'false' } });
    await createEndpoint(api.app, api.config, tenant, receiver.url('/ok/flush'), ['*']);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const e = await api.app
        .get(Transactions)
        .run((uow) => api.app.get(EventsService).record(uow, tenant, 'visit.created', standIn({ i })));
      ids.push(e.id);
    }
    // …then Redis loses every job.
    expect(await flushRedisPrefix(redis, prefix)).toBeGreaterThan(0);
    // A worker starts: the sweeper finds the due deliveries in PostgreSQL.
    const worker = await bootTestApp({ db, env: { ...env, RUN_WORKER: 'true', SURFACES: 'docs' } });
    try {
      const got = await receiver.waitFor('/ok/flush', 20);
      expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    } finally {
      await worker.close();
      await api.close();
    }
  });

  it('delivers an event whose worker was killed mid-delivery (kill -9), through another worker', async () => {
    const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
    const env = {
      WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_SWEEP_MS: '200',
      REDIS_KEY_PREFIX: prefix,
    };
    const [{ child }, api] = await Promise.all([
      startWorkerProcess(db.url, env, 90_000),
      bootTestApp({ db, env: { ...env, RUN_WORKER: 'false' } }),
    ]);
    let second: TestApp | null = null;
    try {
      const other = { organisationId: 'org_killed_worker', livemode: false };
      await createEndpoint(api.app, api.config, other, receiver.url('/hang-once'), ['*']);
      const event = await api.app
        .get(Transactions)
        .run((uow) => api.app.get(EventsService).record(uow, other, 'visit.created', standIn({ n: 1 })));
      await receiver.waitFor('/hang-once', 1, 20_000); // the child worker is now waiting on the receiver
      child.kill('SIGKILL');
      second = await bootTestApp({ db, env: { ...env, RUN_WORKER: 'true', SURFACES: 'docs' } });
      const got = await receiver.waitFor('/hang-once', 2, 20_000);
      expect(got.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      // the receiver logs a request before it answers, so the outcome is recorded a moment after the receipt
      const rows = await until(async () => {
        const r = await pg.query(
          `SELECT status, attempt_count FROM visitor.webhook_delivery WHERE event_id = $1`,
          [event.id],
        );
        return r.rows[0]?.status !== 'pending' && r.rows;
      });
      expect(rows).toEqual([{ status: 'succeeded', attempt_count: 1 }]);
    } finally {
      child.kill('SIGKILL');
      await second?.close();
      await api.close();
    }
  }, 120_000);
});
