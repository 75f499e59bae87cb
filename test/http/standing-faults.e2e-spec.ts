import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { flushRedisPrefix } from '../../src/redis/redis-prefix';
import { Client } from 'pg';
import { bootTestApp, createTestDatabase, TestApp, TestDatabase } from '../harness';
import { startWorkerProcess } from '../support/app-process';
import { call, createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';
import { createEndpoint } from '../support/webhook-fixtures';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Standing guard (issue 24 item 10b): the worker process is killed (kill -9) and Redis loses every queued job while
 * webhook deliveries and visitor passes are pending. Another worker, finding the work in PostgreSQL, delivers every
 * event at least once and sends every pass exactly once per visit.
 */
describe('standing fault suite: worker killed and Redis flushed with work pending', () => {
  const VISITS = 30;
  let receiver: WebhookReceiver;
  let db: TestDatabase;
  let pg: Client;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `ghtest:${randomBytes(6).toString('hex')}`;
  const env = {
    WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_SWEEP_MS: '200',
    REDIS_KEY_PREFIX: prefix,
    TEST_MODE_RATE_PER_MINUTE: '100000',
  };
  let api: TestApp;
  let second: TestApp | null = null;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    api = await bootTestApp({ db, env: { ...env, RUN_WORKER: 'false' } });
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await api?.close();
    await pg.end();
    await db.drop();
    await receiver.stop();
    redis.disconnect();
  });

  const one = async (sql: string, params: unknown[]) => Number((await pg.query(sql, params)).rows[0].n);

  it('every event is delivered and every pass sent exactly once per visit', async () => {
    const org = await createOrg(api.app, 'pro');
    const key = await org.key();
    const site = org.sites.find((s) => !s.livemode)!.id;
    const since = new Date();
    await createEndpoint(
      api.app,
      api.config,
      { organisationId: org.id, livemode: false },
      receiver.url('/ok/standing'),
      ['*'],
    );
    const host = (
      await call(api.app, 'POST', '/v1/people', {
        key,
        body: { name: 'Efua Host', email: 'efua@faults.test' },
      })
    ).json().id as string;

    // Visits made while no worker runs: their passes and the deliveries of their events wait (in Redis and
    // PostgreSQL).
    const visits: string[] = [];
    for (let i = 0; i < VISITS; i++) {
      const res = await call(api.app, 'POST', '/v1/visits', {
        key,
        body: {
          site_id: site,
          host_id: host,
          type: 'meeting',
          visitor: { name: `Guest ${i}`, phone: `+2332449${String(10000 + i).padStart(5, '0')}` },
        },
      });
      expect(res.statusCode).toBe(201);
      visits.push(res.json().id as string);
    }

    // A worker starts on the queued work and is killed (kill -9) as soon as it is under way; Redis loses every job.
    const { child, exited } = await startWorkerProcess(db.url, env);
    try {
      await receiver.waitFor('/ok/standing', 1, 60_000);
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    expect(await flushRedisPrefix(redis, prefix)).toBeGreaterThan(0);
    const pending =
      (await one(
        `SELECT count(*) AS n FROM visitor.visit_pass WHERE organisation_id = $1 AND status = 'pending'`,
        [org.id],
      )) +
      (await one(
        `SELECT count(*) AS n FROM visitor.webhook_delivery d JOIN visitor.event e ON e.id = d.event_id
          WHERE e.organisation_id = $1 AND d.status = 'pending'`,
        [org.id],
      ));
    expect(pending).toBeGreaterThan(0); // the kill interrupted work, it did not come after it

    // Another worker: its sweepers find the work in PostgreSQL.
    second = await bootTestApp({ db, env: { ...env, RUN_WORKER: 'true', SURFACES: 'docs' } });
    await until(
      async () =>
        (await one(
          `SELECT count(*) AS n FROM visitor.visit_pass WHERE organisation_id = $1 AND status <> 'sent'`,
          [org.id],
        )) === 0,
      90_000,
    );
    const events = async () =>
      (
        await pg.query(
          `SELECT id FROM visitor.event WHERE organisation_id = $1 AND NOT livemode AND created_at >= $2`,
          [org.id, since],
        )
      ).rows.map((r: { id: string }) => r.id);
    await until(async () => {
      const got = new Set(receiver.on('/ok/standing').map((r) => r.headers['webhook-id'] as string));
      return (await events()).every((id) => got.has(id));
    }, 90_000);

    // every visit: one pass row, one message, one pass.sent event; each event of the organisation delivered
    for (const visit of visits) {
      const counts = {
        visit,
        passes: await one(`SELECT count(*) AS n FROM visitor.visit_pass WHERE visit_id = $1`, [visit]),
        messages: await one(`SELECT count(*) AS n FROM visitor.message WHERE related_id = $1`, [visit]),
        passSent: await one(
          `SELECT count(*) AS n FROM visitor.event WHERE type = 'pass.sent' AND body::jsonb #>> '{data,object,id}' = $1`,
          [visit],
        ),
      };
      expect(counts).toEqual({ visit, passes: 1, messages: 1, passSent: 1 });
    }
    const all = await events();
    expect(all.length).toBe(2 * VISITS + 1); // the host's person.created, and visit.created and pass.sent per visit
    const delivered = new Set(receiver.on('/ok/standing').map((r) => r.headers['webhook-id'] as string));
    expect(all.filter((id) => !delivered.has(id))).toEqual([]);
  }, 240_000);
});
