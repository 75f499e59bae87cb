import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-setup';
import { bootTestApp, CapturingLogger, TestApp } from '../harness';
import { call, createOrg } from '../support/platform-fixtures';
import { PgReplication, startPgReplication } from '../support/pg-replication';
import { until } from '../support/until';

/**
 * DATABASE_READ_URL against a real streaming replica of the test's own primary (test/support/pg-replication.ts):
 * public reads are served by the replica (with WAL replay paused they miss a row the primary has: the documented
 * lag) while /v1 reads its own writes on the primary; when the replica is killed under load, every public read
 * still answers 200 (from the primary), and once it is back reads go to it again.
 */
describe('a read replica for the public API', () => {
  let pg: PgReplication;
  let t: TestApp;
  let primary: Client;
  let logger: CapturingLogger;
  let seq = 0;

  const connect = async (url: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    return c;
  };
  const onReplica = async <T>(work: (c: Client) => Promise<T>): Promise<T> => {
    const c = await connect(pg.replicaUrl);
    try {
      return await work(c);
    } finally {
      await c.end();
    }
  };
  /** A campaign written on the primary: public, so the public API shows it wherever it reads it. */
  const campaign = async () => {
    const slug = `replica-${++seq}`;
    await primary.query(
      `INSERT INTO content.campaign (id, slug, title, description, category, status, goal_amount, currency,
                                     organizer_id, created_at)
       VALUES ($1, $2, 'Replica ' || $2, 'Read where?', 'education', 'active', 1000, 'GHS', 'usr_replica', now())`,
      [`cmp_${slug.replace('-', '_')}`, slug],
    );
    return slug;
  };
  /** The replica has replayed everything the primary has written so far. */
  const caughtUp = async () => {
    const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    await until(
      () =>
        onReplica(async (c) => {
          const r = await c.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [
            rows[0].lsn,
          ]);
          return r.rows[0].ok;
        }),
      60_000,
    );
  };
  let ip = 0;
  const publicGet = (url: string) =>
    t.app.inject({ method: 'GET', url, remoteAddress: `10.9.${Math.floor(++ip / 250) % 250}.${ip % 250}` });
  const replicaState = async () =>
    (
      (await t.app.inject({ method: 'GET', url: '/health/ready' })).json() as {
        checks: Record<string, string>;
      }
    ).checks.postgres_replica;

  beforeAll(async () => {
    pg = await startPgReplication();
    await runMigrations(pg.primaryUrl);
    primary = await connect(pg.primaryUrl);
    await primary.query(
      `INSERT INTO content.account (id, username, email, created_at)
       VALUES ('usr_replica', 'replica_organizer', 'organizer@replica.test', now())`,
    );
    await pg.startReplica();
    logger = new CapturingLogger();
    t = await bootTestApp({
      db: { name: 'postgres', url: pg.primaryUrl, drop: async () => undefined },
      env: {
        DATABASE_READ_URL: pg.replicaUrl,
        RUN_WORKER: 'false',
        PUBLIC_KEYLESS_RATE_PER_MINUTE: '1000000',
        TEST_MODE_RATE_PER_MINUTE: '1000000',
      },
      logger,
    });
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await primary?.end();
    await pg?.close();
  }, 60_000);

  it('serves public reads from the replica, lag included, while /v1 reads its own writes on the primary', async () => {
    const seen = await campaign();
    await caughtUp();
    await until(async () => (await replicaState()) === 'up', 30_000);
    expect((await publicGet(`/public/v1/campaigns/${seen}`)).statusCode).toBe(200);
    // the read pool's connections are on the replica
    const readers = await onReplica(async (c) => {
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gatehouse-read'`,
      );
      return r.rows[0].n;
    });
    expect(readers).toBeGreaterThan(0);

    await onReplica((c) => c.query('SELECT pg_wal_replay_pause()'));
    try {
      const lagging = await campaign();
      // the primary has it; the replica, paused, does not: the public API answers what the replica has
      expect(
        (await primary.query('SELECT 1 FROM content.campaign WHERE slug = $1', [lagging])).rowCount,
      ).toBe(1);
      expect((await publicGet(`/public/v1/campaigns/${lagging}`)).statusCode).toBe(404);
      const list = (await publicGet('/public/v1/campaigns')).json();
      expect({ slugs: list.data?.map((c: { slug: string }) => c.slug), total: list.total }).toEqual({
        slugs: [seen],
        total: 1,
      });

      // /v1 writes and reads what it wrote on the primary, which the paused replica has not replayed
      const org = await createOrg(t.app, 'pro');
      const key = await org.key();
      const created = await call(t.app, 'POST', '/v1/people', {
        key,
        body: { name: 'Ama Replica', email: 'ama@replica.test' },
      });
      expect(created.statusCode).toBe(201);
      const read = await call(t.app, 'GET', `/v1/people/${created.json().id}`, { key });
      expect({ status: read.statusCode, name: read.json().name }).toEqual({
        status: 200,
        name: 'Ama Replica',
      });
    } finally {
      await onReplica((c) => c.query('SELECT pg_wal_replay_resume()'));
    }
    await caughtUp();
    expect((await publicGet(`/public/v1/campaigns/replica-${seq}`)).statusCode).toBe(200);
  }, 120_000);

  it('answers every public read while the replica is killed and restarted under load, then reads from it again', async () => {
    const slug = await campaign();
    await caughtUp();
    const statuses = new Map<number, number>();
    const linesBefore = logger.lines.length;
    let served = 0;
    let running = true;
    const loop = async () => {
      while (running) {
        const list = await publicGet('/public/v1/campaigns?limit=10');
        const detail = await publicGet(`/public/v1/campaigns/${slug}`);
        for (const s of [list.statusCode, detail.statusCode]) statuses.set(s, (statuses.get(s) ?? 0) + 1);
        served += 2;
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, loop));
    try {
      await until(async () => served >= 40, 60_000);
      await pg.stopReplica();
      await until(async () => (await replicaState()) === 'down', 30_000);
      const atStop = served;
      await until(async () => served >= atStop + 100, 60_000); // served by the primary meanwhile
      await pg.restartReplica();
      await until(async () => (await replicaState()) === 'up', 60_000);
      const atBack = served;
      await until(async () => served >= atBack + 40, 60_000);
    } finally {
      running = false;
      await load;
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: served });
    // one line when it went away, one when it served again
    const lines = logger.lines
      .slice(linesBefore)
      .map((l) => String(l.message))
      .filter((m) => /read replica/.test(m));
    expect(lines.map((m) => m.split(/[ :(]/).slice(0, 3).join(' '))).toEqual([
      'read replica unavailable',
      'read replica serves',
    ]);

    // reads are the replica's again: with its replay paused, a new row is missing from the public API
    await caughtUp();
    await onReplica((c) => c.query('SELECT pg_wal_replay_pause()'));
    try {
      const lagging = await campaign();
      expect((await publicGet(`/public/v1/campaigns/${lagging}`)).statusCode).toBe(404);
      expect((await publicGet(`/public/v1/campaigns/${slug}`)).statusCode).toBe(200);
    } finally {
      await onReplica((c) => c.query('SELECT pg_wal_replay_resume()'));
    }
  }, 180_000);
});
