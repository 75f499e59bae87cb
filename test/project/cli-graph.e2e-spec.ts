import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';
import { cliLogger, createCliContext } from '../../src/cli/cli.module';
import { newId } from '../../src/common/ids';
import { EventsService } from '../../src/visitor/events/events.service';
import { bootTestApp, TestApp } from '../harness';
import { createOrg, TestOrg } from '../support/platform-fixtures';
import { createEndpoint } from '../support/webhook-fixtures';

const run = promisify(execFile);

/**
 * The CLI runs in the server's object graph (src/cli/cli.module.ts): an event a command records reaches the same
 * subscribers as one a request records, so an organisation's webhook endpoint gets its delivery. (The CLI used to
 * build its services with `new`, and its EventsService had no subscriber: the event was stored, never delivered.)
 */
describe('CLI commands run in the server object graph', () => {
  let t: TestApp;
  let pg: Client;
  let org: TestOrg;
  let person: string;
  const site = () => org.sites.find((s) => !s.livemode)!.id;
  const cli = (...args: string[]) =>
    run(process.execPath, [join(__dirname, '../../dist/src/cli.js'), ...args], {
      env: {
        ...process.env,
        DATABASE_URL: t.db.url,
        NODE_ENV: 'test',
        REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
        // Even where RUN_WORKER is on, a CLI process starts no worker and no periodic task.
        RUN_WORKER: 'true',
      },
    });

  const clock = (body: object) =>
    cli('attendance', 'clock', '--org', org.id, '--mode', 'test', '--json', JSON.stringify(body));

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    org = await createOrg(t.app);
    person = newId('person');
    await pg.query(
      `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, site_ids, can_host, active, created_at, updated_at)
       VALUES ($1, $2, false, 'Kofi Mensah', 'kofi@staff.test', $3, false, true, now(), now())`,
      [person, org.id, [site()]],
    );
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });

  it('a clock-in recorded by `gatehouse attendance clock` is delivered to the endpoint subscribed to it', async () => {
    const endpoint = await createEndpoint(
      t.app,
      t.config,
      { organisationId: org.id, livemode: false },
      'https://hooks.example.test/attendance',
      ['attendance.clocked_in'],
    );
    const body = {
      person_id: person,
      site_id: site(),
      direction: 'in',
      occurred_at: new Date().toISOString(),
      method: 'pin',
    };
    const { stdout } = await clock(body);
    const event = JSON.parse(stdout) as { id: string };
    expect(event).toMatchObject({ person_id: person, direction: 'in' });

    const { rows: events } = await pg.query(
      `SELECT id, type FROM visitor.event WHERE organisation_id = $1 AND NOT livemode`,
      [org.id],
    );
    expect(events).toEqual([{ id: expect.stringMatching(/^evt_/), type: 'attendance.clocked_in' }]);
    const { rows: deliveries } = await pg.query(
      `SELECT event_id, endpoint_id, status FROM visitor.webhook_delivery WHERE organisation_id = $1`,
      [org.id],
    );
    expect(deliveries).toEqual([{ event_id: events[0].id, endpoint_id: endpoint.id, status: 'pending' }]);
    // Enqueued after commit through the graph's queue, and still waiting: the CLI ran no delivery worker.
    const redis = new Redis(t.config.redisUrl);
    try {
      const { rows } = await pg.query(`SELECT id FROM visitor.webhook_delivery WHERE organisation_id = $1`, [
        org.id,
      ]);
      const queue = `${t.config.redisKeyPrefix}:bull:webhook-delivery`;
      expect(await redis.zscore(`${queue}:delayed`, `${rows[0].id}-1`)).toBeNull();
      expect(await redis.lrange(`${queue}:wait`, 0, -1)).toEqual([`${rows[0].id}-1`]);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it('refuses a bad body with the fields named (exit code 2) and records nothing', async () => {
    const count = async () =>
      (await pg.query(`SELECT count(*)::int AS n FROM visitor.event WHERE organisation_id = $1`, [org.id]))
        .rows[0].n as number;
    const before = await count();
    const failed = await clock({
      person_id: 'person_nope',
      site_id: site(),
      direction: 'in',
      method: 'pin',
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('occurred_at');
    expect(await count()).toBe(before);
  }, 60_000);

  it("the CLI's graph has every event subscriber the server's has", async () => {
    const subscribers = (events: EventsService) =>
      (events as unknown as { subscribers: object[] }).subscribers.map((x) => x.constructor.name).sort();
    const graph = await createCliContext(
      t.config,
      t.db.url,
      cliLogger((line) => console.error(line)),
    );
    try {
      const server = subscribers(t.app.get(EventsService));
      expect(server.length).toBeGreaterThan(0);
      expect(subscribers(graph.get(EventsService))).toEqual(server);
    } finally {
      await graph.close();
    }
  });
});
